/** The discardEditorChanges prompt (spec §2 prompt list): leave without saving, save first, or stay. */
import { useTranslation } from 'react-i18next';
import { openPrompt } from '../../stores/prompts';
import { PromptCard } from '../prompts/PromptCard';

export type DiscardAnswer = 'discard' | 'save';

/** Resolves 'discard' or 'save', or null to keep editing (also on Escape). */
export function askDiscardChanges(name: string): Promise<DiscardAnswer | null> {
  return openPrompt<DiscardAnswer>(function DiscardEditorChangesPrompt({ resolve, dismiss }) {
    const { t } = useTranslation();
    return (
      <PromptCard
        title={t('editor.discard.title')}
        actions={
          <>
            <button type="button" className="button" data-autofocus onClick={dismiss}>
              {t('editor.discard.keep')}
            </button>
            <button type="button" className="button button--danger" onClick={() => resolve('discard')}>
              {t('editor.discard.discard')}
            </button>
            <button type="button" className="button button--primary" onClick={() => resolve('save')}>
              {t('editor.discard.save')}
            </button>
          </>
        }
      >
        <p dir="auto">{t('editor.discard.text', { name })}</p>
      </PromptCard>
    );
  });
}
