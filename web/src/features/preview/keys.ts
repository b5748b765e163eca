/** Whether a key press belongs to what has focus rather than to the preview's shortcuts. */

/** Native players use the arrow keys to seek and change the volume. */
export function isMediaTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLMediaElement;
}

/** A zoomed image scrolls with the arrow keys while it has focus. */
export function isScrollingTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && target.classList.contains('image-stage--zoomed');
}
