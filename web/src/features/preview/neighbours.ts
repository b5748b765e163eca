/**
 * Previous and next file of an open file, in the order its folder's listing shows them (folders
 * skipped), for the preview's arrows and buttons.
 */
import type { Resource, ResourceItem } from '../../api/resources';
import { sortItems, sortingFrom } from '../../lib/sorting';

export interface Neighbours {
  previous: ResourceItem | null;
  next: ResourceItem | null;
  /** 1-based position of the file among the folder's files; 0 when it is not listed. */
  position: number;
  count: number;
}

export const NO_NEIGHBOURS: Neighbours = { previous: null, next: null, position: 0, count: 0 };

/** `folder` is the listing of the file's parent; `path` the open file's virtual path. */
export function fileNeighbours(folder: Resource | undefined, path: string): Neighbours {
  if (!folder?.items) return NO_NEIGHBOURS;
  const files = sortItems(
    folder.items.filter((i) => !i.isDir),
    sortingFrom(folder.sorting),
  );
  const index = files.findIndex((i) => i.path === path);
  if (index < 0) return { ...NO_NEIGHBOURS, count: files.length };
  return {
    previous: files[index - 1] ?? null,
    next: files[index + 1] ?? null,
    position: index + 1,
    count: files.length,
  };
}
