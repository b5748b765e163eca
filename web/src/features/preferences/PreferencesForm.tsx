/**
 * Language and theme of the signed-in user. The language is the user's `locale`, saved with a
 * partial PUT /api/users/{id} (spec §7) and then renewed into the token; the theme is kept in this
 * browser (the user record has no theme field, api.md §3).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { renewSession } from '../../api/auth';
import { updateUserFields } from '../../api/users';
import { setLanguage } from '../../i18n';
import { chooseLanguage, LANGUAGES, type LanguageCode } from '../../i18n/languages';
import { useSession } from '../../stores/session';
import { setThemeChoice, useTheme, type ThemeChoice } from '../../stores/theme';
import { toast } from '../../stores/toasts';

const THEMES: ThemeChoice[] = ['system', 'light', 'dark'];

export function PreferencesForm() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  const theme = useTheme((s) => s.choice);
  const [saving, setSaving] = useState(false);
  const language = chooseLanguage(user?.locale, navigator.languages);

  async function handleLanguage(code: LanguageCode) {
    if (!user) return;
    setSaving(true);
    try {
      await setLanguage(code);
      await updateUserFields(user.id, { locale: code }, ['locale']);
      await renewSession();
      // `t` still speaks the language this render started in; the message is in the new one.
      toast.success(i18n.t('settings.saved'));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : String(err));
      await setLanguage(language);
    } finally {
      setSaving(false);
    }
  }

  function handleTheme(choice: ThemeChoice) {
    setThemeChoice(choice);
    toast.success(t('settings.saved'));
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
          disabled={saving}
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
    </div>
  );
}
