/**
 * Profile settings (spec §2): language, theme, hideDotfiles, singleClick, dateFormat and
 * uploadsLimit, each applied as soon as it changes. Preferences of the user record are saved with
 * a partial PUT /api/users/{id} (spec §7) and renewed into the token, so the file browser follows
 * them at once; the theme and uploadsLimit live in this browser (the record has no such fields).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renewSession } from '../../api/auth';
import { queryKeys } from '../../api/queryKeys';
import { updateUserFields } from '../../api/users';
import { Checkbox } from '../../components/Checkbox';
import { Field } from '../../components/Field';
import { setLanguage } from '../../i18n';
import { chooseLanguage, LANGUAGES, type LanguageCode } from '../../i18n/languages';
import { UPLOADS_LIMIT_MAX, UPLOADS_LIMIT_MIN } from '../../lib/limits';
import { useSession } from '../../stores/session';
import { setThemeChoice, useTheme, type ThemeChoice } from '../../stores/theme';
import { toast } from '../../stores/toasts';
import { setUploadsLimit, useUploadsLimit, validUploadsLimit } from '../../stores/uploadsLimit';
import './settings.css';

const THEMES: ThemeChoice[] = ['system', 'light', 'dark'];
const FLAGS = ['hideDotfiles', 'singleClick', 'dateFormat'] as const;
type Flag = (typeof FLAGS)[number];
/** Typing "10" passes through "1": one toast once typing pauses. */
const NUMBER_SETTLE_MS = 600;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function ProfileForm() {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const user = useSession((s) => s.user);
  const theme = useTheme((s) => s.choice);
  const [savingLanguage, setSavingLanguage] = useState(false);
  const [savingFlag, setSavingFlag] = useState<Flag | null>(null);
  const language = chooseLanguage(user?.locale, navigator.languages);

  async function handleLanguage(code: LanguageCode) {
    if (!user) return;
    setSavingLanguage(true);
    try {
      await setLanguage(code);
      await updateUserFields(user.id, { locale: code }, ['locale']);
      await renewSession();
      // `t` still speaks the language this render started in; the message is in the new one.
      toast.success(i18n.t('settings.saved'));
    } catch (err) {
      toast.error(messageOf(err));
      await setLanguage(language);
    } finally {
      setSavingLanguage(false);
    }
  }

  function handleTheme(choice: ThemeChoice) {
    setThemeChoice(choice);
    toast.success(t('settings.saved'));
  }

  async function handleFlag(flag: Flag, on: boolean) {
    if (!user) return;
    setSavingFlag(flag);
    // Shown at once; put back if the server refuses.
    useSession.setState({ user: { ...user, [flag]: on } });
    try {
      await updateUserFields(user.id, { [flag]: on }, [flag]);
      await renewSession();
      // The server leaves dotfiles out of listings: what is cached was listed under the old choice.
      if (flag === 'hideDotfiles') queryClient.removeQueries({ queryKey: queryKeys.resources() });
      toast.success(t('settings.saved'));
    } catch (err) {
      const current = useSession.getState().user;
      if (current) useSession.setState({ user: { ...current, [flag]: !on } });
      toast.error(messageOf(err));
    } finally {
      setSavingFlag(null);
    }
  }

  return (
    <div className="card">
      <h1 className="card__title">{t('settings.profile')}</h1>
      <label className="field">
        <span className="field__label">{t('settings.language')}</span>
        <select
          className="input"
          name="locale"
          value={language}
          disabled={savingLanguage}
          onChange={(e) => void handleLanguage(e.target.value as LanguageCode)}
        >
          {LANGUAGES.map((l) => (
            <option key={l.code} value={l.code} lang={l.code}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span className="field__label">{t('settings.theme')}</span>
        <select
          className="input"
          name="theme"
          value={theme}
          onChange={(e) => handleTheme(e.target.value as ThemeChoice)}
        >
          {THEMES.map((choice) => (
            <option key={choice} value={choice}>
              {t(`settings.themes.${choice}`)}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="fieldset">
        <legend className="field__label">{t('settings.files')}</legend>
        {FLAGS.map((flag) => (
          <Checkbox
            key={flag}
            name={flag}
            label={t(`settings.flags.${flag}`)}
            hint={t(`settings.flags.${flag}Hint`)}
            checked={user?.[flag] ?? false}
            disabled={savingFlag === flag}
            onChange={(on) => void handleFlag(flag, on)}
          />
        ))}
      </fieldset>
      {user ? <UploadsLimitField userId={user.id} /> : null}
    </div>
  );
}

/** 1 to 10 uploads at once (§5): every valid number is kept at once; one toast after typing stops. */
function UploadsLimitField({ userId }: { userId: number }) {
  const { t } = useTranslation();
  const saved = useUploadsLimit({ id: userId });
  const [text, setText] = useState(String(saved));
  const toastTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(toastTimer.current), []);
  const valid = validUploadsLimit(text);

  function handleChange(next: string) {
    setText(next);
    const value = validUploadsLimit(next);
    if (value === null || value === saved) return;
    setUploadsLimit(userId, value);
    clearTimeout(toastTimer.current);
    toastTimer.current = setTimeout(() => toast.success(t('settings.saved')), NUMBER_SETTLE_MS);
  }

  return (
    <Field
      label={t('settings.uploadsLimit')}
      hint={t('settings.uploadsLimitHint', { min: UPLOADS_LIMIT_MIN, max: UPLOADS_LIMIT_MAX })}
      error={
        valid === null ? t('settings.errors.range', { min: UPLOADS_LIMIT_MIN, max: UPLOADS_LIMIT_MAX }) : null
      }
    >
      {(control) => (
        <input
          {...control}
          className="input input--number"
          type="number"
          name="uploadsLimit"
          inputMode="numeric"
          min={UPLOADS_LIMIT_MIN}
          max={UPLOADS_LIMIT_MAX}
          step={1}
          value={text}
          onChange={(e) => handleChange(e.target.value)}
        />
      )}
    </Field>
  );
}
