/** One card of the global settings: a form with a title and a save button (each saves everything). */
import { useId, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function SettingsCard({
  title,
  intro,
  saving,
  onSave,
  children,
}: {
  title: string;
  intro?: ReactNode;
  saving: boolean;
  onSave: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const titleId = useId();
  function handleSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    onSave();
  }
  return (
    <form className="card settings-card" aria-labelledby={titleId} onSubmit={handleSubmit} noValidate>
      <h2 id={titleId} className="card__title">
        {title}
      </h2>
      {intro ? <p className="settings-card__intro muted">{intro}</p> : null}
      {children}
      <div className="form-actions">
        <button type="submit" className="button button--primary" disabled={saving}>
          {t('settings.save')}
        </button>
      </div>
    </form>
  );
}
