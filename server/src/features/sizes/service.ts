/**
 * The disk-usage picture's data (docs/api.md §24.2): a folder's children as the listing shows them
 * (the same resolver, scope, rules, hidden files and links left out, fs/listing.ts), each with its
 * size from the file index, biggest first; beyond MAX_ITEMS the smallest become one group, so a
 * folder of 100,000 entries answers a few hundred rows, not 100,000 rectangles.
 */
import type { FolderUsage, FolderUsageItem, Rule } from '@coffer/protocol';
import { BadRequest } from '../../http/errors.js';
import { listFolder } from '../../fs/listing.js';
import type { FileService } from '../../fs/service.js';
import type { UserRecord } from '../users/repository.js';
import type { IndexService } from '../index/service.js';

/** The most children answered one by one; the rest are summed into `other`. */
export const MAX_ITEMS = 200;

/** Biggest first; equal sizes by name (code units), so the answer is stable. */
export function bySize(a: FolderUsageItem, b: FolderUsageItem): number {
  return b.size - a.size || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The sorted items cut at `max`, the rest summed. */
export function grouped(items: FolderUsageItem[], max = MAX_ITEMS): Pick<FolderUsage, 'items' | 'other' | 'size'> {
  items.sort(bySize);
  const kept = items.slice(0, max);
  let size = 0;
  let otherSize = 0;
  for (const it of kept) size += it.size;
  for (let i = max; i < items.length; i++) otherSize += items[i]!.size;
  return { items: kept, other: { count: Math.max(0, items.length - max), size: otherSize }, size: size + otherSize };
}

export function createFolderUsageService(deps: {
  files: FileService;
  index: Pick<IndexService, 'status' | 'progress' | 'folderSizes'>;
}) {
  return {
    /**
     * The picture of `rawPath` for `user`. Path problems are the listing's (400/403/404, thrown by
     * the resolver before any other I/O); a file is 400. Without a ready index the answer says so
     * and carries no items: sizes are never guessed.
     */
    async of(user: UserRecord, rawPath: string, globalRules: readonly Rule[]): Promise<FolderUsage> {
      const dir = await deps.files.resolve(user, rawPath, { globalRules, mustExist: true });
      if (!dir.stat?.isDirectory()) throw new BadRequest('not a folder');
      const empty = { path: dir.virtual, size: 0, items: [], other: { count: 0, size: 0 } };
      const sizes = deps.index.status === 'ready' ? await deps.index.folderSizes(dir.real) : null;
      if (!sizes) {
        // Not ready (or, rarely, this folder is not indexed yet: a change still being applied).
        const p = deps.index.progress();
        const status = p.status === 'ready' ? 'building' : p.status;
        return { status, percent: status === 'building' ? Math.min(p.percent, 99) : 0, ...empty };
      }
      // What the caller may see comes from the disk listing alone; the index only gives sizes.
      const listing = await listFolder(dir, user, globalRules);
      const items: FolderUsageItem[] = listing.items.map((it) => {
        const indexed = sizes.children.get(it.name);
        // A link counts as itself (the index never follows one); an entry the index has not
        // caught up with counts its own size, a folder 0 until it is indexed.
        const size = indexed ?? (it.isDir || it.isSymlink ? 0 : it.size);
        return { name: it.name, isDir: it.isDir, isSymlink: it.isSymlink, type: it.type, size };
      });
      return { status: 'ready', percent: 100, path: dir.virtual, ...grouped(items) };
    },
  };
}
