/**
 * Profile settings (docs/client.md §2): language, theme, hideDotfiles, singleClick, dateFormat and
 * uploadsLimit, each applied as soon as it changes. Preferences of the user record are saved with
 * a partial PUT /api/users/{id} (docs/client.md §7) and renewed into the token, so the file browser follows
 * them at once; the theme and uploadsLimit live in this browser (the record has no such fields).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renewSession } from '../../api/auth';
import { queryKeys } from '../../api/queryKeys';
import { updateUserFields } from '../../api/users';
import { Checkbox } from '../../components/Checkbox';
import { NumberField, SelectField } from '../../components/Field';
import { setLanguage } from '../../i18n';
import { chooseLanguage, type LanguageCode } from '../../i18n/languages';
import { UPLOADS_LIMIT_MAX, UPLOADS_LIMIT_MIN } from '../../lib/limits';
import { useSession } from '../../stores/session';
import { setThemeChoice, useTheme, type ThemeChoice } from '../../stores/theme';
import { toast } from '../../stores/toasts';
import { setUploadsLimit, useUploadsLimit, validUploadsLimit } from '../../stores/uploadsLimit';
import { LANGUAGE_OPTIONS } from './languageOptions';
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
      <SelectField
        name="locale"
        label={t('settings.language')}
        value={language}
        disabled={savingLanguage}
        onChange={(code) => void handleLanguage(code as LanguageCode)}
        options={LANGUAGE_OPTIONS}
      />
      <SelectField
        name="theme"
        label={t('settings.theme')}
        value={theme}
        onChange={(choice) => handleTheme(choice as ThemeChoice)}
        options={THEMES.map((choice) => [choice, t(`settings.themes.${choice}`)] as const)}
      />
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

/** 1 to 10 uploads at once (docs/client.md §5): every valid number is kept at once; one toast after typing stops. */
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
    <NumberField
      name="uploadsLimit"
      label={t('settings.uploadsLimit')}
      hint={t('settings.uploadsLimitHint', { min: UPLOADS_LIMIT_MIN, max: UPLOADS_LIMIT_MAX })}
      error={
        valid === null ? t('settings.errors.range', { min: UPLOADS_LIMIT_MIN, max: UPLOADS_LIMIT_MAX }) : null
      }
      min={UPLOADS_LIMIT_MIN}
      max={UPLOADS_LIMIT_MAX}
      value={text}
      onChange={handleChange}
    />
  );
}
