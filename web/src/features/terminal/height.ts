/**
 * The shell panel's height (docs/client.md §2, §9), in em of the panel's own font: at least about 2.25 em
 * (one input line) plus the divider, at most the window height minus 4 em, 25 em by default.
 */

export const DEFAULT_HEIGHT_EM = 25;
/** One input line. */
export const MIN_CONTENT_EM = 2.25;
/** Room kept above the panel. */
export const TOP_MARGIN_EM = 4;
/** Keyboard steps on the divider: arrows, Page Up / Page Down. */
export const STEP_EM = 1;
export const PAGE_STEP_EM = 5;
/** docs/client.md §9: drag updates are throttled to one per 32 ms. */
export const DRAG_THROTTLE_MS = 32;

export interface HeightLimits {
  min: number;
  max: number;
}

/** Limits for a window `windowPx` high, an em of `emPx` and a divider `dividerPx` high. */
export function heightLimits(windowPx: number, emPx: number, dividerPx: number): HeightLimits {
  const min = MIN_CONTENT_EM + dividerPx / emPx;
  const max = windowPx / emPx - TOP_MARGIN_EM;
  // A window too low for both: the minimum wins, the panel never collapses below one line.
  return { min, max: Math.max(min, max) };
}

export function clampHeight(em: number, { min, max }: HeightLimits): number {
  if (!Number.isFinite(em)) return Math.min(Math.max(DEFAULT_HEIGHT_EM, min), max);
  return Math.min(Math.max(em, min), max);
}

/** The height that puts the divider under a pointer at `clientY` (the panel sits at the bottom). */
export function heightAtPointer(clientY: number, windowPx: number, emPx: number): number {
  return (windowPx - clientY) / emPx;
}

/** The height after a key on the divider (WAI-ARIA window splitter), or null for other keys. */
export function heightForKey(key: string, current: number, limits: HeightLimits): number | null {
  switch (key) {
    case 'ArrowUp':
      return clampHeight(current + STEP_EM, limits);
    case 'ArrowDown':
      return clampHeight(current - STEP_EM, limits);
    case 'PageUp':
      return clampHeight(current + PAGE_STEP_EM, limits);
    case 'PageDown':
      return clampHeight(current - PAGE_STEP_EM, limits);
    case 'Home':
      return limits.min;
    case 'End':
      return limits.max;
    default:
      return null;
  }
}
