/** The discardEditorChanges prompt (docs/client.md §2 prompt list): leave without saving, save first, or stay. */
import { i18n } from '../../i18n';
import { confirmDanger } from '../prompts/ConfirmPrompt';

export type DiscardAnswer = 'discard' | 'save';

/** Resolves 'discard' or 'save', or null to keep editing (also on Escape). */
export async function askDiscardChanges(name: string): Promise<DiscardAnswer | null> {
  const t = i18n.t.bind(i18n);
  const answer = await confirmDanger({
    title: t('editor.discard.title'),
    text: t('editor.discard.text', { name }),
    cancel: t('editor.discard.keep'),
    confirm: t('editor.discard.discard'),
    others: [{ answer: 'save', label: t('editor.discard.save'), primary: true }],
  });
  return answer === true ? 'discard' : answer;
}
