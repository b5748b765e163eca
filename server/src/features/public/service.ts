/**
 * Anonymous access to a share (docs/api.md §15, S44–S47): `{hash}{/subpath}` → the share, its password
 * or token, its owner as the owner is now, and the requested item confined to the shared folder.
 */
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { canonicalPath, joinVirtual, percentDecode, type CanonicalPath } from '../../fs/canonical.js';
import { resolveInArea, type ScopedPath } from '../../fs/resolve.js';
import { isDenied } from '../../fs/rules.js';
import type { FileService } from '../../fs/service.js';
import { HttpError, NotFound, Unauthorized } from '../../http/errors.js';
import type { ShareRecord, UploadTerms } from '../shares/repository.js';
import type { ShareService } from '../shares/service.js';
import type { UserRecord, UserRepository } from '../users/repository.js';
import type { SharePasswordThrottle } from '../../auth/throttle.js';

export interface Credentials {
  /** X-SHARE-PASSWORD as received (percent-encoded by the client), if any. */
  password?: string;
  /** `token` query parameter, if any. */
  token?: string;
  /** Client address (S45). */
  address: string;
}

export interface PublicTarget {
  share: ShareRecord;
  owner: UserRecord;
  globalRules: readonly Rule[];
  /** The shared item, resolved in the owner's scope (virtual = the owner's path). */
  shared: ScopedPath;
  /**
   * The requested item. For a shared folder it is resolved with the folder as its area: `virtual`
   * is relative to the share (`/` for the folder itself) and `root` is the shared folder. For a
   * shared file it is the file (`shared`).
   */
  item: ScopedPath;
  /** The item's path as the owner sees it (rules are matched on it, docs/api.md §15.1 6c). */
  ownerVirtual: string;
  fileShare: boolean;
  /** Name of the shared item: the last segment of the share path ("" for a shared scope root). */
  sharedName: string;
  /** S44: the download token to hand out (protected share, password or token accepted). */
  token?: string;
}

/** An open upload share: the shared folder as its owner sees it now. */
export interface UploadTarget {
  share: ShareRecord & { upload: UploadTerms };
  owner: UserRecord;
  globalRules: readonly Rule[];
  /** The shared folder, resolved in the owner's scope. */
  folder: ScopedPath;
  /** S44: the token to hand out (protected share, password or token accepted). */
  token?: string;
}

export function isUploadShare(s: ShareRecord): s is ShareRecord & { upload: UploadTerms } {
  return s.kind === 'upload' && s.upload !== undefined;
}

export interface PublicServiceDeps {
  shares: ShareService;
  users: Pick<UserRepository, 'byId'>;
  files: FileService;
  throttle: SharePasswordThrottle;
  /** S45: pause before answering a wrong password. */
  failureDelayMs: number;
}

/** The share is gone for the public, whatever the reason (S46): one answer for all of them. */
const gone = () => new NotFound('share not found');
/** A sub-path that does not exist or that the owner's rules hide (S12, S46). */
const missing = () => new NotFound('not found');

/** Splits the URL tail after the endpoint into the hash and the rest ("" when none). */
export function splitHash(tail: string): { hash: string; sub: string } {
  const i = tail.indexOf('/');
  return i < 0 ? { hash: tail, sub: '' } : { hash: tail.slice(0, i), sub: tail.slice(i + 1) };
}

/** X-SHARE-PASSWORD is percent-encoded with query rules ("+" is a space); undefined when invalid. */
export function decodeSharePassword(header: string): string | undefined {
  try {
    return percentDecode(header.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * A canonical path inside a shared folder: the owner's rules (and hidden dotfiles) are checked on
 * every level below the share, by the owner's path, so nothing under a denied or hidden folder is
 * reachable by name either (404, S12, S46); then it is resolved with the shared folder as the
 * area, so links are followed only while they stay inside it (403, S47).
 */
export async function resolveInShare(
  t: Pick<PublicTarget, 'owner' | 'globalRules' | 'shared'>,
  canon: CanonicalPath,
): Promise<{ item: ScopedPath; ownerVirtual: string }> {
  let at = t.shared.virtual;
  for (const seg of canon.path === '/' ? [] : canon.path.slice(1).split('/')) {
    at = joinVirtual(at, '/' + seg);
    if (isDenied(t.owner, at, t.globalRules, { hidden: true })) throw missing();
  }
  const item = await resolveInArea({ root: t.shared.real }, canon, { mustExist: true });
  return { item, ownerVirtual: at };
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

export function createPublicService(deps: PublicServiceDeps) {
  /** docs/api.md §15.3 and S44/S45; returns the token to hand out (undefined for an open share). */
  async function unlock(share: ShareRecord, cred: Credentials): Promise<string | undefined> {
    if (share.passwordHash === '') return undefined;
    await deps.throttle.admit(cred.address);
    if (cred.token && (await deps.shares.checkToken(share, cred.token))) return cred.token;
    if (cred.password === undefined || cred.password === '') throw new Unauthorized();
    const release = await deps.throttle.begin(cred.address, share.hash);
    try {
      const plain = decodeSharePassword(cred.password);
      if (plain !== undefined && (await deps.shares.checkPassword(share, plain))) return deps.shares.issueToken(share);
      await deps.throttle.failed(cred.address, share.hash);
      await sleep(deps.failureDelayMs);
      throw new Unauthorized();
    } finally {
      release();
    }
  }

  /** Steps 3–5 of docs/api.md §15.1 with S46: every failure is the same 404. */
  async function sharedItem(share: ShareRecord, globalRules: readonly Rule[]): Promise<{ owner: UserRecord; shared: ScopedPath }> {
    const owner = await deps.users.byId(share.userId);
    if (!owner) {
      await deps.shares.deleteByHash(share.hash); // a deleted owner's links are dead for good
      throw gone();
    }
    // A normal share hands out bytes (`download`); an upload share writes files (`create`, docs/api.md §23.3).
    if (!owner.perm.share || !(isUploadShare(share) ? owner.perm.create : owner.perm.download)) throw gone();
    let shared: ScopedPath;
    try {
      shared = await deps.files.resolve(owner, share.path, { mustExist: true, globalRules });
    } catch (err) {
      if (err instanceof HttpError && err.status < 500) throw gone();
      throw err;
    }
    const st = shared.stat;
    if (!st) throw gone();
    // Same path, other file (deleted and re-created, replaced by a move): not what was shared.
    if (share.ino !== '' && (String(st.ino) !== share.ino || String(st.dev) !== share.dev)) throw gone();
    return { owner, shared };
  }

  return {
    /**
     * Resolves `{hash}{/subpath}` (the URL tail, already percent-decoded once by the router) in
     * the order of docs/api.md §15.1. Throws 404 (unknown, expired, S46), 429 (S45), 401 (password),
     * 403 (a sub-path climbing out of the share or reaching it through an escaping link, S47),
     * 400 (control characters in the sub-path).
     */
    async open(tail: string, cred: Credentials): Promise<PublicTarget> {
      const { hash, sub } = splitHash(tail);
      const share = hash === '' ? undefined : await deps.shares.byHash(hash);
      // An upload share lists and hands out nothing, under any route (docs/api.md §23).
      if (!share || isUploadShare(share)) throw gone();
      const token = await unlock(share, cred);
      const globalRules = await deps.files.globalRules();
      const { owner, shared } = await sharedItem(share, globalRules);
      const sharedName = shared.virtual === '/' ? '' : path.posix.basename(shared.virtual);
      // S1 with the share as the area: ".." above it → 403, control characters → 400.
      const canon = canonicalPath(sub);
      if (!shared.stat!.isDirectory()) {
        // S47: a shared file has no sub-paths but its own name (kept for browsers' file names).
        if (canon.path !== '/' && canon.path !== `/${sharedName}`) throw missing();
        return { share, owner, globalRules, shared, item: shared, ownerVirtual: shared.virtual, fileShare: true, sharedName, token };
      }
      const { item, ownerVirtual } = await resolveInShare({ owner, globalRules, shared }, canon);
      return { share, owner, globalRules, shared, item, ownerVirtual, fileShare: false, sharedName, token };
    },

    /**
     * An upload share by its hash (docs/api.md §23.3), in the order of §15.1: live upload share
     * (404) → password or token (401/429) → owner with `share` and `create` (404) → the same
     * folder, still in the owner's scope and rules (404). Every request of a visitor passes here,
     * so a share whose owner lost `create` or whose folder went is dead at once.
     */
    async openUpload(hash: string, cred: Credentials): Promise<UploadTarget> {
      const share = hash === '' ? undefined : await deps.shares.byHash(hash);
      if (!share || !isUploadShare(share)) throw gone();
      const token = await unlock(share, cred);
      const globalRules = await deps.files.globalRules();
      const { owner, shared } = await sharedItem(share, globalRules);
      if (!shared.stat!.isDirectory()) throw gone();
      return { share, owner, globalRules, folder: shared, token };
    },
  };
}
export type PublicService = ReturnType<typeof createPublicService>;
