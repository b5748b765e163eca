/** A yes-or-no card for a step that cannot be undone: the safe answer has the focus, the other is red. */
import { openPrompt } from '../../stores/prompts';
import { PromptCard } from './PromptCard';

export interface ConfirmOptions {
  title: string;
  text: string;
  /** The safe answer (closes the card, resolves null). */
  cancel: string;
  /** The destructive answer (resolves true). */
  confirm: string;
}

export function confirmDanger({ title, text, cancel, confirm }: ConfirmOptions): Promise<true | null> {
  return openPrompt<true>(function ConfirmPrompt({ resolve, dismiss }) {
    return (
      <PromptCard
        title={title}
        actions={
          <>
            <button type="button" className="button" data-autofocus onClick={dismiss}>
              {cancel}
            </button>
            <button type="button" className="button button--danger" onClick={() => resolve(true)}>
              {confirm}
            </button>
          </>
        }
      >
        <p dir="auto">{text}</p>
      </PromptCard>
    );
  });
}
