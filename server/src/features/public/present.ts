/**
 * The JSON of GET /api/public/share (docs/api.md §15): the Resource shape, with paths relative to the
 * share and nothing of the owner (no username, scope or outside path, S43).
 */
import type { PublicResource, PublicUploadShare } from '@coffer/protocol';
import type { UploadTerms } from '../shares/repository.js';
import { joinVirtual } from '../../fs/canonical.js';
import { describe, listFolder, type ResourceItem } from '../../fs/listing.js';
import { readHead } from '../../fs/read.js';
import { isDenied } from '../../fs/rules.js';
import { detectType, HEADER_BYTES } from '../../fs/types.js';
import type { PublicTarget } from './service.js';

/** docs/api.md §15.2: folders first, then names A→Z (natural, case-insensitive), whoever the owner is. */
const PUBLIC_SORTING = { by: 'name', asc: false };
/** The listing itself applies no rule: the owner's rules are matched on owner paths below. */
const NO_RULES = { rules: [], hideDotfiles: false, sorting: PUBLIC_SORTING };

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
    // docs/api.md §15.1 6c: the owner's rules (and hidden dotfiles) on the owner's path of each item.
    const items = listing.items
      .filter((it) => !isDenied(t.owner, joinVirtual(t.shared.virtual, it.path), t.globalRules, { hidden: true }))
      .map(base);
    const numDirs = items.filter((i) => i.isDir).length;
    out = { ...base(listing), items, numDirs, numFiles: items.length - numDirs, sorting: { ...PUBLIC_SORTING } };
  } else {
    const self = await describe(item);
    const special = !item.stat!.isFile();
    const head = special ? undefined : await readHead(item, HEADER_BYTES);
    // docs/api.md §7.4 type rules as File Browser applies them to a share: the owner's `modify` decides.
    const canModify = t.owner.perm.modify;
    out = { ...base(self), type: detectType({ name: self.name, size: self.size, special, head, sniff: opts.sniff, canModify }) };
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

/** docs/api.md §23.2: what a visitor of an upload share learns — the message and the room left. */
export function presentUploadShare(u: UploadTerms, token: string | undefined): PublicUploadShare {
  const out: PublicUploadShare = {
    message: u.message,
    maxFileSize: u.maxFileSize,
    maxFiles: u.maxFiles,
    maxBytes: u.maxBytes,
    filesLeft: u.maxFiles > 0 ? Math.max(0, u.maxFiles - u.files) : null,
    bytesLeft: u.maxBytes > 0 ? Math.max(0, u.maxBytes - u.bytes) : null,
  };
  if (token) out.token = token;
  return out;
}
