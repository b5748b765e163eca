/**
 * GET /api/public/dl (docs/api.md §15): a file through the raw download (ranges, validators, S60/S61),
 * a folder through the archive service, both rooted at the share: `files=` entries are resolved
 * inside the shared folder (S47) and the walk matches the owner's rules on the owner's paths.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalPath, joinVirtual, percentDecode } from '../../fs/canonical.js';
import type { ScopedPath } from '../../fs/resolve.js';
import { BadRequest } from '../../http/errors.js';
import { formatFor, type ArchiveFormat } from '../archive/formats.js';
import { archiveName, commonBase, topLevelOnly } from '../archive/names.js';
import type { ArchivePlan } from '../archive/service.js';
import { addressKey } from '../../auth/throttle.js';
import { sendArchive } from '../archive/send.js';
import { sendResolvedFile } from '../../http/send-file.js';
import { resolveInShare, type PublicTarget } from './service.js';

export interface DownloadQuery {
  inline?: string;
  algo?: string;
  files?: string;
}

/**
 * The selection, checked before any byte (S57): each `files=` entry is decoded once more,
 * canonicalised with the target folder as its root and resolved inside the share. The planned
 * items carry the owner's paths (same files, same area) so that the walk applies the owner's rules
 * where they were written, while links are still judged against the shared folder.
 */
export async function planShareArchive(t: PublicTarget, filesParam: string | undefined, format: ArchiveFormat): Promise<ArchivePlan> {
  const list = (filesParam ?? '').split(',').filter((s) => s !== '');
  const picked: { item: ScopedPath; ownerVirtual: string }[] = [];
  if (list.length === 0) picked.push({ item: t.item, ownerVirtual: t.ownerVirtual });
  for (const raw of list) {
    const canon = canonicalPath(percentDecode(raw));
    picked.push(await resolveInShare(t, { path: joinVirtual(t.item.virtual, canon.path), trailingSlash: false }));
  }
  const owned = picked.map(({ item, ownerVirtual }): ScopedPath => ({ ...item, virtual: ownerVirtual }));
  const top = new Set(topLevelOnly(owned.map((i) => i.virtual)));
  const seen = new Set<string>();
  const items = owned.filter((i) => top.has(i.virtual) && !seen.has(i.virtual) && seen.add(i.virtual));
  const base = commonBase(items.map((i) => i.virtual));
  // Names come from inside the share only: a shared scope root is never named after its folder.
  const inShare = (v: string) => (v === t.shared.virtual ? '/' + (t.sharedName || 'share') : v);
  const name = archiveName({ base: inShare(base), requested: inShare(t.ownerVirtual), scopeName: t.sharedName || 'share', items: items.length, extension: format.extension });
  return { items, base, name };
}

export async function sendPublicDownload(req: FastifyRequest, reply: FastifyReply, t: PublicTarget, q: DownloadQuery): Promise<FastifyReply> {
  const st = t.item.stat!;
  if (!st.isDirectory()) return sendResolvedFile(req, reply, t.item, q.inline === 'true');
  const format = formatFor(q.algo);
  if (!format) throw new BadRequest('unsupported archive format'); // S57
  const plan = await planShareArchive(t, q.files, format);

  // Visitors count by client address, never against the owner's own downloads.
  return sendArchive(req, reply, { plan, format, mtime: st.mtime, user: t.owner, globalRules: t.globalRules, client: `addr:${addressKey(req.ip)}` });
}
