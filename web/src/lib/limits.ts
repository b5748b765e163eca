/** Numbers the spec pins, named once (spec.md §9). */
export const NARROW_BREAKPOINT_PX = 736; // §9 narrow layout breakpoint
export const SUCCESS_TOAST_MS = 4_000; // §9 success toast
export const MAX_TOASTS = 10; // §9 max toasts
export const MODAL_BASE_Z = 1000; // §9 modal stacking base
export const MODAL_Z_STEP = 2; // §9 modal stacking step
export const SEARCH_PAGE = 50; // §9 search results at a time
