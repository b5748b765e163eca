/**
 * Keeping a fixed panel's end clear of the toasts (docs/client.md §2 "Notifications"): the toasts
 * sit at the bottom of the window above everything, so a panel that reaches the bottom under them
 * (the sidebar, the drawer on phones) pads its end by the height they take where they cross it —
 * its last lines (version, project link) stay readable, or scroll clear, until a toast is closed.
 */
import { useLayoutEffect, type RefObject } from 'react';
import { useToasts } from '../../stores/toasts';

/** The id of the toasts' region (ToastHost). */
export const TOASTS_ID = 'toasts';

/** The CSS variable (px) the panel's padding adds at its end. */
export const CLEARANCE_VAR = '--toasts-clearance';

interface Span {
  left: number;
  right: number;
}

/**
 * How far up from `panelBottom` the toasts reach where they cross the panel's columns (0 when
 * they are all beside it). Rectangles in viewport pixels.
 */
export function toastClearance(
  panel: Span & { bottom: number },
  toasts: readonly (Span & { top: number })[],
): number {
  let top = panel.bottom;
  for (const t of toasts) {
    if (t.left < panel.right && t.right > panel.left) top = Math.min(top, t.top);
  }
  return Math.ceil(panel.bottom - top);
}

/** Keeps `CLEARANCE_VAR` on the panel up to date while toasts show. */
export function useClearOfToasts(ref: RefObject<HTMLElement | null>): void {
  const count = useToasts((s) => s.toasts.length);
  useLayoutEffect(() => {
    const panel = ref.current;
    const region = document.getElementById(TOASTS_ID);
    if (!panel || !region || count === 0) return;
    function measure() {
      if (!panel || !region) return;
      // Across, the panel's layout box: a closed drawer slid aside by a transform counts where it
      // opens (its padding is ready when it slides in).
      const left = panel.offsetLeft;
      const box = { left, right: left + panel.offsetWidth, bottom: panel.getBoundingClientRect().bottom };
      const toasts = [...region.children].map((c) => c.getBoundingClientRect());
      panel.style.setProperty(CLEARANCE_VAR, `${toastClearance(box, toasts)}px`);
    }
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(region);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
      panel.style.removeProperty(CLEARANCE_VAR);
    };
  }, [ref, count]);
}
