/** Keyboard helpers shared by the screens' shortcuts. */

/** Text fields and editable content keep their keys: shortcuts stand aside while the user types. */
export function isTypingTarget(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}
