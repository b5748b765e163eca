/**
 * The JSON of GET /api/public/share (api.md §17): the Resource shape, with paths relative to the
 * share and nothing of the owner (no username, scope or outside path, S43).
 */
import { joinVirtual } from '../../fs/canonical.js';
import { describe, listFolder, type ResourceItem } from '../../fs/listing.js';
import { readHead } from '../../fs/read.js';
import { isDenied } from '../../fs/rules.js';
import { detectType, HEADER_BYTES } from '../../fs/types.js';
import type { PublicTarget } from './service.js';

/** api.md §17: folders first, then names A→Z (natural, case-insensitive), whoever the owner is. */
const PUBLIC_SORTING = { by: 'name', asc: false };
/** The listing itself applies no rule: the owner's rules are matched on owner paths below. */
const NO_RULES = { rules: [], hideDotfiles: false, sorting: PUBLIC_SORTING };

export interface PublicResource extends ResourceItem {
  items?: ResourceItem[];
  numDirs?: number;
  numFiles?: number;
  sorting?: { by: string; asc: boolean };
  token?: string;
}

/** Only the fields of the Resource shape, in File Browser's order. */
function base(it: ResourceItem): ResourceItem {
  return {
    path: it.path,
    name: it.name,
    size: it.size,
    extension: it.extension,
    modified: it.modified,
    mode: it.mode,
    isDir: it.isDir,
    isSymlink: it.isSymlink,
    type: it.type,
  };
}

export async function presentPublic(t: PublicTarget, opts: { sniff: boolean }): Promise<PublicResource> {
  const { item } = t;
  let out: PublicResource;
  if (item.stat!.isDirectory()) {
    const listing = await listFolder(item, NO_RULES, []);
    // api.md §17.1 6c: the owner's rules (and hidden dotfiles) on the owner's path of each item.
    const items = listing.items
      .filter((it) => !isDenied(t.owner, joinVirtual(t.shared.virtual, it.path), t.globalRules, { hidden: true }))
      .map(base);
    const numDirs = items.filter((i) => i.isDir).length;
    out = { ...base(listing), items, numDirs, numFiles: items.length - numDirs, sorting: { ...PUBLIC_SORTING } };
  } else {
    const self = await describe(item);
    const special = !item.stat!.isFile();
    const head = special ? undefined : await readHead(item, HEADER_BYTES);
    // Visitors never modify: text is reported as textImmutable.
    out = { ...base(self), type: detectType({ name: self.name, size: self.size, special, head, sniff: opts.sniff, canModify: false }) };
  }
  if (t.fileShare) {
    out.path = '';
    out.name = t.sharedName;
  } else if (item.virtual === '/') {
    out.name = t.sharedName;
  }
  if (t.token) out.token = t.token;
  return out;
}
