/**
 * Share links (docs/api.md §14, S40–S49): expiry maths, password hashing, who may see and delete what,
 * and the clean-up when paths are deleted or renamed. Public access lives in features/public.
 */
import { randomBytes } from 'node:crypto';
import type { ShareCreateRequest } from '@coffer/protocol';
import { hashPassword, MAX_PASSWORD_BYTES, verifyPassword } from '../../auth/passwords.js';
import { canonicalPath, joinVirtual } from '../../fs/canonical.js';
import { refresh, type ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import { BadRequest, Forbidden, NotFound } from '../../http/errors.js';
import type { SettingsRepository } from '../settings/repository.js';
import type { UserRecord, UserRepository } from '../users/repository.js';
import type { ShareRecord, ShareRepository, UploadTerms } from './repository.js';
import { deriveShareTokenKey, issueShareToken, matchesLegacyToken, verifyShareToken } from './token.js';

export const UNIT_SECONDS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };
/** docs/client.md §5: a share duration is 0 to 2147483647 units. */
export const MAX_EXPIRES = 2147483647;
/** S41: 128 random bits. */
export const SHARE_HASH_BYTES = 16;
/** Hashes this server issues (22 chars) and File Browser's older ones (8 chars, may be padded). */
const HASH_SHAPE = /^[A-Za-z0-9_-]{1,128}={0,2}$/;

/**
 * docs/api.md §14.4 step 4 with S42: `expires` empty/absent = permanent, else decimal digits only
 * ("0" = permanent); `unit` absent/empty = hours, else exactly one of the four names.
 * Returns the Unix second after which the link is dead, 0 for permanent.
 */
export function expiryFrom(expires: string | undefined, unit: string | undefined, nowS: number): number {
  const u = unit === undefined || unit === '' ? 'hours' : unit;
  const perUnit = Object.hasOwn(UNIT_SECONDS, u) ? UNIT_SECONDS[u]! : undefined;
  if (perUnit === undefined) throw new BadRequest('unit must be one of seconds, minutes, hours, days');
  if (expires === undefined || expires === '') return 0;
  if (!/^[0-9]{1,20}$/.test(expires)) throw new BadRequest('expires must be a whole number of units, 0 or more');
  const n = Number(expires);
  if (n > MAX_EXPIRES) throw new BadRequest(`expires must be at most ${MAX_EXPIRES}`);
  if (n === 0) return 0;
  return Math.floor(nowS + n * perUnit);
}

/**
 * docs/api.md §23.1: the terms of an upload share, or undefined for a normal one. Only a folder
 * can receive files (400), and only from an owner who may create files (403). Upload fields on a
 * normal share are refused (400) rather than silently dropped.
 */
export function uploadTermsFrom(input: ShareCreateRequest, owner: Pick<UserRecord, 'perm'>, target: Pick<ScopedPath, 'stat'>): UploadTerms | undefined {
  const extra = input.message !== undefined || input.maxFileSize !== undefined || input.maxFiles !== undefined || input.maxBytes !== undefined;
  if (input.kind !== 'upload') {
    if (extra) throw new BadRequest('message and limits are for upload shares (kind "upload")');
    return undefined;
  }
  if (!target.stat?.isDirectory()) throw new BadRequest('only a folder can receive uploads');
  if (!owner.perm.create) throw new Forbidden();
  return {
    message: input.message ?? '',
    maxFileSize: input.maxFileSize ?? 0,
    maxFiles: input.maxFiles ?? 0,
    maxBytes: input.maxBytes ?? 0,
    files: 0,
    bytes: 0,
  };
}

/** S41: a fresh hash, 128 random bits in URL-safe base64 without padding (22 characters). */
export function newShareHash(): string {
  return randomBytes(SHARE_HASH_BYTES).toString('base64url');
}

export function isShareHashShape(hash: string): boolean {
  return HASH_SHAPE.test(hash);
}

/** A stored path compared by whole segments: the trailing "/" a folder was shared with is dropped. */
export function bareSharePath(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** Is the stored share path `sharePath` the path `virtual` or below it, by whole segment (S48)? */
export function isAtOrBelow(sharePath: string, virtual: string): boolean {
  const p = bareSharePath(sharePath);
  if (virtual === '/') return true;
  return p === virtual || p.startsWith(virtual + '/');
}

function isPathInside(dir: string, p: string): boolean {
  const d = dir.endsWith('/') ? dir : dir + '/';
  return p === dir || p.startsWith(d);
}

export interface ShareServiceDeps {
  repo: ShareRepository;
  users: Pick<UserRepository, 'byId'>;
  files: FileService;
  settings: Pick<SettingsRepository, 'signingKey'>;
  /** Unix seconds. */
  now?: () => number;
}

export function createShareService(deps: ShareServiceDeps) {
  const { repo } = deps;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  let tokenKey: Promise<Buffer> | undefined;
  const key = () =>
    (tokenKey ??= deps.settings.signingKey().then((k) => {
      if (!k) throw new Error('the database has no signing key');
      return deriveShareTokenKey(k);
    }));

  const isExpired = (s: ShareRecord, t: number) => s.expire !== 0 && s.expire <= t;

  /** A live share by hash; an expired one is deleted on sight and reads as missing. */
  async function byHash(hash: string): Promise<ShareRecord | undefined> {
    if (!isShareHashShape(hash)) return undefined;
    const share = await repo.byHash(hash);
    if (!share) return undefined;
    if (isExpired(share, now())) {
      await repo.delete(share.hash);
      return undefined;
    }
    return share;
  }

  /** The share's path still leads, through its owner's scope, to the very file it was made for. */
  async function stillThere(s: ShareRecord): Promise<boolean> {
    const owner = await deps.users.byId(s.userId);
    if (!owner) return false;
    try {
      const p = await deps.files.resolve(owner, s.path, { rules: false });
      return p.exists && !!p.stat && String(p.stat.ino) === s.ino && String(p.stat.dev) === s.dev;
    } catch {
      return false;
    }
  }

  return {
    now,

    /**
     * POST /api/share/{path}: the target must exist now, inside the owner's scope, allowed by the
     * rules, not behind an escaping link (S40); then the body is checked (S42).
     */
    async create(owner: UserRecord, rawPath: string, body: ShareCreateRequest | undefined): Promise<ShareRecord> {
      const target = await deps.files.resolve(owner, rawPath, { mustExist: true });
      const input = body ?? {};
      const t = now();
      const expire = expiryFrom(input.expires, input.unit, t);
      const password = input.password ?? '';
      if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new BadRequest(`password is too long, maximum length is ${MAX_PASSWORD_BYTES}`);
      const upload = uploadTermsFrom(input, owner, target);
      const passwordHash = password === '' ? '' : await hashPassword(password);
      const st = target.stat!;
      const record: ShareRecord = {
        hash: newShareHash(),
        path: target.virtual === '/' || !target.trailingSlash ? target.virtual : target.virtual + '/',
        userId: owner.id,
        expire,
        passwordHash,
        dev: String(st.dev),
        ino: String(st.ino),
        realPath: target.real,
        createdAt: t,
        ...(upload ? { kind: 'upload' as const, upload } : {}),
      };
      await repo.insert(record);
      return record;
    },

    /** GET /api/shares: every live share for an admin, the caller's own otherwise. */
    async list(viewer: UserRecord): Promise<ShareRecord[]> {
      const t = now();
      await repo.deleteExpired(t);
      if (!viewer.perm.admin) return repo.listLiveByUser(viewer.id, t);
      await repo.deleteOrphans();
      return repo.listLive(t);
    },

    /**
     * GET /api/share/{path}: a non-admin's shares of exactly this path (trailing "/" included);
     * for an admin, every owner's shares of the same on-disk location (owner scope + share path
     * against admin scope + path, compared lexically). The path need not exist; a denied or
     * escaping one is refused (403).
     */
    async listForPath(viewer: UserRecord, rawPath: string): Promise<ShareRecord[]> {
      const canon = canonicalPath(rawPath);
      // S4, S12: a rule-denied path, or one behind a link out of the scope, is 403 as on every
      // other route (the path itself need not exist).
      await deps.files.resolve(viewer, canon);
      const path = canon.path === '/' || !canon.trailingSlash ? canon.path : canon.path + '/';
      const t = now();
      await repo.deleteExpired(t);
      if (!viewer.perm.admin) return repo.listLiveByUserPath(viewer.id, path, t);
      const want = joinVirtual(canonicalPath(viewer.scope).path, canon.path);
      const owners = new Map<number, UserRecord | undefined>();
      const out: ShareRecord[] = [];
      for (const s of await repo.listLive(t)) {
        if (!owners.has(s.userId)) owners.set(s.userId, await deps.users.byId(s.userId));
        const owner = owners.get(s.userId);
        if (!owner) continue;
        let at: string;
        try {
          at = joinVirtual(canonicalPath(owner.scope).path, canonicalPath(s.path).path);
        } catch {
          continue; // a stored path that no longer canonicalises matches nothing
        }
        if (at === want) out.push(s);
      }
      return out;
    },

    /** DELETE /api/share/{hash}: owner or admin (S49). */
    async remove(viewer: UserRecord, rawHash: string): Promise<void> {
      const hash = rawHash.replace(/^\/+|\/+$/g, '');
      if (hash === '') throw new BadRequest('share hash is empty');
      const share = await byHash(hash);
      if (!share) throw new NotFound('share not found');
      if (share.userId !== viewer.id && !viewer.perm.admin) throw new Forbidden();
      await repo.delete(share.hash);
    },

    byHash,

    /** docs/api.md §23.3: counts an upload against the share's limits; false when one is reached. */
    reserve: (hash: string, length: number) => repo.reserve(hash, length),
    /** Gives back the count of an upload that will not finish. */
    release: (hash: string, length: number) => repo.release(hash, length),

    async deleteByHash(hash: string): Promise<void> {
      await repo.delete(hash);
    },

    /**
     * S48 / docs/api.md §14.6: after `target` was deleted or renamed away by `ownerId`,
     * removes that user's shares of the path or below it (whole segments), and the other users'
     * shares whose file was there and is gone now (a part kept back by a rule, S7, stays shared).
     * Returns how many went.
     */
    async removeUnder(ownerId: number, target: ScopedPath): Promise<number> {
      const gone: string[] = [];
      for (const s of await repo.candidatesUnder(ownerId, target.entry)) {
        if (s.userId === ownerId && isAtOrBelow(s.path, target.virtual)) gone.push(s.hash);
        else if (isPathInside(target.entry, s.realPath) && !(await stillThere(s))) gone.push(s.hash);
      }
      return repo.deleteMany(gone);
    },

    /**
     * After an item at the real path `real` was deleted for good from the trash (docs/api.md §22):
     * every share of it or below it whose file is gone. Its shares outlive the trashing (they work
     * again once restored) but not the purge: an inode freed then can be reused by a new file at
     * the same path, which a stale share's (dev, ino) check would take for the shared one.
     */
    async removeGoneUnder(real: string): Promise<number> {
      const gone: string[] = [];
      for (const s of await repo.candidatesUnder(-1, real)) if (isPathInside(real, s.realPath) && !(await stillThere(s))) gone.push(s.hash);
      return repo.deleteMany(gone);
    },

    /**
     * After the owner's own save or upload replaced `before` (an atomic write gives the file a new
     * inode): its live shares follow the new version of the file. Shares already pointing at
     * another file than `before` stay dead (S46).
     */
    async retarget(before: ScopedPath): Promise<number> {
      const old = before.stat;
      if (!old) return 0;
      const after = await refresh(before);
      if (!after.exists || !after.stat || after.real !== before.real) return 0;
      const to = { dev: String(after.stat.dev), ino: String(after.stat.ino) };
      const from = { dev: String(old.dev), ino: String(old.ino) };
      if (to.dev === from.dev && to.ino === from.ino) return 0;
      return repo.retarget(before.real, from, to);
    },

    /** Periodic clean-up: expired links and links of deleted users. */
    async sweep(): Promise<number> {
      return (await repo.deleteExpired(now())) + (await repo.deleteOrphans());
    },

    /** S44: the share's download token, issued after a correct password. */
    async issueToken(share: ShareRecord): Promise<string> {
      return issueShareToken(await key(), share, now());
    },

    async checkToken(share: ShareRecord, token: string): Promise<boolean> {
      // A share imported from File Browser also opens with the token File Browser gave it.
      if (share.legacyTokenSha256 && matchesLegacyToken(share.legacyTokenSha256, token)) return true;
      return verifyShareToken(await key(), share, token, now());
    },

    /** Constant-time slow-hash comparison (argon2id, or bcrypt for imported links). */
    checkPassword(share: ShareRecord, password: string): Promise<boolean> {
      return verifyPassword(share.passwordHash, password);
    },
  };
}
export type ShareService = ReturnType<typeof createShareService>;
