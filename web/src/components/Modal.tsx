/**
 * A modal card: labelled dialog, focus kept inside while it is on top (Tab cycles), focus given
 * back on close, Enter runs the default action. Escape is handled by the prompt host so that only
 * the top card closes.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface ModalProps {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  /** Whether this card is the current one; cards below are inert. */
  active?: boolean;
  zIndex?: number;
  /** Enter outside buttons and text areas. */
  onEnter?: () => void;
  wide?: boolean;
  /** A body long enough to scroll: it takes keyboard focus so that it can be scrolled with keys. */
  scrollable?: boolean;
}

export function Modal({
  title,
  children,
  actions,
  active = true,
  zIndex,
  onEnter,
  wide = false,
  scrollable = false,
}: ModalProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const card = ref.current;
    const first =
      card?.querySelector<HTMLElement>('[data-autofocus]') ?? card?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? card)?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);

  useEffect(() => {
    const card = ref.current;
    if (!card || !active) return;
    function handleKeyDown(e: KeyboardEvent) {
      if (e.key === 'Tab') {
        const items = [...(card?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
        const first = items[0];
        const last = items.at(-1);
        if (!first || !last) {
          e.preventDefault();
          return;
        }
        if (e.shiftKey && (document.activeElement === first || document.activeElement === card)) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      } else if (e.key === 'Enter' && onEnter) {
        const target = e.target as HTMLElement;
        if (target.tagName === 'BUTTON' || target.tagName === 'TEXTAREA' || target.tagName === 'A') return;
        e.preventDefault();
        onEnter();
      }
    }
    card.addEventListener('keydown', handleKeyDown);
    return () => card.removeEventListener('keydown', handleKeyDown);
  }, [active, onEnter]);

  return (
    <div className="modal-backdrop" style={{ zIndex }} inert={!active}>
      <div
        ref={ref}
        className={wide ? 'modal modal--wide' : 'modal'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
      >
        <h2 id={titleId} className="modal__title">
          {title}
        </h2>
        {scrollable ? (
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a body that scrolls: keyboard users scroll it with the arrow keys once it has focus
          <div className="modal__body" role="region" aria-labelledby={titleId} tabIndex={0}>
            {children}
          </div>
        ) : (
          <div className="modal__body">{children}</div>
        )}
        {actions ? <div className="modal__actions">{actions}</div> : null}
      </div>
    </div>
  );
}
