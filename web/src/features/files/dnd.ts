/**
 * Dragging items onto a folder moves them (docs/client.md §2 "Listing items", §6: only with the rename
 * permission). The drag carries `ITEMS_DRAG_TYPE`; files dragged in from outside carry "Files"
 * instead, so an upload drop zone and these folder targets never answer each other's drags.
 */
import { trimSlash } from './selection';

export const ITEMS_DRAG_TYPE = 'application/x-coffer-items';

export interface DraggedItem {
  path: string;
  name: string;
}

export interface Drag {
  /** The folder the items are in (ends in `/`). */
  from: string;
  items: DraggedItem[];
}

// A drop target may not read the drag's data until the drop, only its types: the items of the
// drag in progress (always from this page) are kept here.
let current: Drag | null = null;

export function startDrag(drag: Drag): void {
  current = drag;
}

export function endDrag(): void {
  current = null;
}

export function currentDrag(): Drag | null {
  return current;
}

export function isItemsDrag(types: readonly string[]): boolean {
  return types.includes(ITEMS_DRAG_TYPE);
}

/**
 * Whether the dragged items may be dropped into folder `dest` (ends in `/`): not into the folder
 * they are already in, not onto one of them, not into one of their own sub-folders.
 */
export function canDropOn(dest: string, drag: Drag | null): boolean {
  if (!drag || drag.items.length === 0 || dest === drag.from) return false;
  return drag.items.every((item) => {
    const own = `${trimSlash(item.path)}/`;
    return !dest.startsWith(own);
  });
}

/** The folder path (ending in `/`) of a folder item. */
export function folderPath(path: string): string {
  return `${trimSlash(path)}/`;
}
