/** Numbers the spec pins, named once (spec.md §9). */
export const NARROW_BREAKPOINT_PX = 736; // §9 narrow layout breakpoint
export const SUCCESS_TOAST_MS = 4_000; // §9 success toast
export const MAX_TOASTS = 10; // §9 max toasts
export const MODAL_BASE_Z = 1000; // §9 modal stacking base
export const MODAL_Z_STEP = 2; // §9 modal stacking step
export const SEARCH_PAGE = 50; // §9 search results at a time
export const MAX_SHARE_DURATION = 2_147_483_647; // §5, §9 share duration 0 to 2147483647
export const SHARE_PAGE = 100; // §9 share page list step
export const QR_SIZE_FOLDER = 100; // §9 QR size for a folder
export const QR_SIZE_FILE = 200; // §9 QR size for a file
