/**
 * Where quotas learn how many bytes a scope holds: one small function, so that the file index
 * (features/index) answers once it is ready and the walk otherwise.
 */
import { treeSize } from '../../fs/tree-size.js';
import type { IndexService } from '../index/service.js';

/** The bytes of the regular files below a real folder (links not followed). */
export type SizeSource = (realRoot: string, signal?: AbortSignal) => Promise<number>;

/** A walk of the folder (fs/tree-size.ts): exact, in time proportional to the tree. */
export const walkSizeSource: SizeSource = async (realRoot, signal) => (await treeSize(realRoot, { signal })).bytes;

/**
 * The index's recursive size of the folder when the index is ready and holds it (kept fresh by
 * Coffer's writes at once and the watcher within seconds); the walk while it is building, when it
 * is off, for a folder it does not hold, or while Coffer's writes below the folder are still being
 * applied to it (its size would miss their bytes).
 */
export function indexedSizeSource(index: Pick<IndexService, 'folderSizes'>): SizeSource {
  return async (realRoot, signal) => {
    const sizes = await index.folderSizes(realRoot, { exact: true }).catch(() => null);
    return sizes ? sizes.size : walkSizeSource(realRoot, signal);
  };
}
