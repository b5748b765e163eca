/** The Cancel and submit buttons at the foot of a prompt's form. */
import { useTranslation } from 'react-i18next';

export function FormActions({ onCancel, submit }: { onCancel: () => void; submit: string }) {
  const { t } = useTranslation();
  return (
    <div className="prompt-form__actions">
      <button type="button" className="button" onClick={onCancel}>
        {t('files.prompts.cancel')}
      </button>
      <button type="submit" className="button button--primary">
        {submit}
      </button>
    </div>
  );
}
