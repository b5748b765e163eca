/**
 * The card for every step that cannot be undone (delete, overwrite, discard, abort): the safe answer
 * comes first and has the focus unless a safer choice is named, the destructive one is red, and
 * Escape is the safe answer.
 */
import type { ReactNode } from 'react';
import { openPrompt } from '../../stores/prompts';
import { PromptCard } from './PromptCard';

/** An answer besides the safe one and the destructive one ("keep both", "save first"). */
export interface OtherChoice<A extends string> {
  answer: A;
  label: string;
  /** Has the focus in place of the safe answer. */
  focus?: boolean;
  /** Drawn as the main button, after the destructive one (save before leaving). */
  primary?: boolean;
}

export interface ConfirmOptions<A extends string = never> {
  title: string;
  text: string;
  /** Shown under the text (the names concerned). */
  details?: ReactNode;
  wide?: boolean;
  /** The safe answer (closes the card, resolves null). */
  cancel: string;
  /** The destructive answer (resolves true); null when the user may not take it. */
  confirm: string | null;
  /** The other answers: between the safe and the destructive one, a primary one last. */
  others?: readonly OtherChoice<A>[];
}

/** Resolves true for the destructive answer, another choice's `answer`, or null (cancel, Escape). */
export function confirmDanger(options: ConfirmOptions): Promise<true | null>;
export function confirmDanger<A extends string>(
  options: ConfirmOptions<A> & { others: readonly OtherChoice<A>[] },
): Promise<true | A | null>;
export function confirmDanger<A extends string>({
  title,
  text,
  details,
  wide,
  cancel,
  confirm,
  others = [],
}: ConfirmOptions<A>): Promise<true | A | null> {
  return openPrompt<true | A>(function ConfirmPrompt({ resolve, dismiss }) {
    const focusOther = others.some((o) => o.focus);
    const other = (o: OtherChoice<A>) => (
      <button
        key={o.answer}
        type="button"
        className={o.primary ? 'button button--primary' : 'button'}
        data-autofocus={o.focus ? true : undefined}
        onClick={() => resolve(o.answer)}
      >
        {o.label}
      </button>
    );
    return (
      <PromptCard
        title={title}
        wide={wide}
        actions={
          <>
            <button
              type="button"
              className="button"
              data-autofocus={focusOther ? undefined : true}
              onClick={dismiss}
            >
              {cancel}
            </button>
            {others.filter((o) => !o.primary).map(other)}
            {confirm === null ? null : (
              <button type="button" className="button button--danger" onClick={() => resolve(true)}>
                {confirm}
              </button>
            )}
            {others.filter((o) => o.primary).map(other)}
          </>
        }
      >
        <p dir="auto">{text}</p>
        {details}
      </PromptCard>
    );
  });
}
