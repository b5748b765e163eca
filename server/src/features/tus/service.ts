/**
 * tus uploads (docs/api.md §13, S50–S53): state in the database, bytes in the staging area, the
 * finished file renamed into place after the checks of the creation are made again.
 *
 * Durability (never lose a byte the client was told is stored, without an fsync per chunk): a
 * chunk is answered once its bytes are written (received), fdatasync'd in the background (synced)
 * and only then counted in the database's `upload_offset` (recorded). Only the kernel that wrote
 * bytes past the recorded offset (`writer`) trusts them; any other one cuts the file back to the
 * recorded offset and takes the upload over. README.md in this folder tells the whole story.
 *
 * The steps, in the order a request meets them: POST → `admitCreation`, `register`; PATCH →
 * `locateChunk`, `reconcileOffset`, `takeOverOrTouch`, the write, then `finishUpload` (last chunk)
 * or `recordWhenSynced`; every upload ends in `complete` or `drop`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import path from 'node:path';
import type { Rule } from '@coffer/protocol';
import { canonicalPath, joinVirtual } from '../../fs/canonical.js';
import { cleanUploadName, suffixedName } from '../../fs/upload-name.js';
import type { ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import { parentBlocked, type StagingArea } from '../../fs/staging.js';
import { fileSize } from '../../fs/tree-size.js';
import { BadRequest, Conflict, Forbidden, HttpError, NotFound, PayloadTooLarge, Unauthorized } from '../../http/errors.js';
import type { QuotaService } from '../quota/service.js';
import type { EventBus, FileEventContext } from '../../events/index.js';
import type { UploadTerms } from '../shares/repository.js';
import type { UserRecord } from '../users/repository.js';
import { Locked, type UploadLocks } from './lock.js';
import type { ParsedInt } from './protocol.js';
import { isUniqueViolation, type UploadRecord, type UploadRepository } from './repository.js';

/** Write errors that mean "no room": full disk, quota, file-size limit. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** Staging files without a database row are left alone this long (a creation may be under way). */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** How long a PATCH waits for another kernel's background sync to confirm the bytes it answered. */
const FOREIGN_SYNC_WAIT_MS = 2000;

/** A PATCH refreshes the S52 expiry clock at most this often (syncs refresh it too). */
const TOUCH_EVERY_MS = 60_000;

/** Names tried for one file of an upload share before giving up (409). */
const MAX_NAME_TRIES = 1000;
/** Staging ids (and a visitor's handle on an upload): 128 random bits in hex. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * A visitor of an upload share (docs/api.md §23.3), as the public route opened the share for this
 * very request: a share whose owner lost `create` or whose folder went never gets this far.
 */
export interface ShareVisitor {
  hash: string;
  /** The share's owner as stored now: files are written, and hooks fire, as this user. */
  owner: UserRecord;
  /** The shared folder, in the owner's scope. */
  folder: ScopedPath;
  /** Limits and counts as read for this request. */
  terms: UploadTerms;
  globalRules: readonly Rule[];
}

/** docs/api.md §23.3: which limit refused an upload, in `Coffer-Limit`. */
export type UploadLimit = 'file-size' | 'files' | 'bytes';

/** A limit of an upload share: 413 for sizes, 403 for the number of files. */
export class LimitReached extends HttpError {
  constructor(readonly limit: UploadLimit) {
    super(limit === 'files' ? 403 : 413, '', { headers: { 'Coffer-Limit': limit } });
  }
}

/** Who is asking: the user re-read from the database, and how the token stands. */
export interface UploadActor {
  user: UserRecord;
  /** Set when the token has expired: it may only continue the upload its session created. */
  expiredJti?: string;
}

export interface TusServiceDeps {
  repo: UploadRepository;
  staging: StagingArea;
  locks: UploadLocks;
  files: FileService;
  /** The files API's hook point (docs/api.md §16.4: tus completion fires `upload`). */
  events: Pick<EventBus, 'before' | 'after'>;
  config: { maxUploadSize: number; uploadExpiry: number };
  /** Counts of upload shares (shares service): taken at creation, given back when an upload is dropped. */
  shareQuota: {
    reserve(hash: string, length: number): Promise<boolean>;
    release(hash: string, length: number): Promise<void>;
    byHash(hash: string): Promise<{ upload?: UploadTerms } | undefined>;
  };
  log: FastifyBaseLogger;
  now?: () => number;
  /**
   * Byte quotas (features/quota): the upload's whole length is judged at its creation and again
   * before every chunk is written, against the quota of the user (of a share's owner for visitors).
   */
  /** Test hook: how long an idle upload's length stays promised (admitQuota); 10 min by default. */
  promiseIdleMs?: number;
  quota?: Pick<QuotaService, 'admitMeasured'>;
}

export interface ChunkInput {
  offset: ParsedInt;
  /** Content-Length of the PATCH, when declared. */
  declaredLength?: number;
  body: AsyncIterator<Buffer>;
  /** Stops this request's body (another request for the same upload is waiting). */
  stop: () => void;
}

/** `name`: where a visitor's finished file landed, in the shared folder (docs/api.md §23.3). */
export type ChunkOutcome = { offset: number; complete: boolean; aborted: false; name?: string } | { offset: number; aborted: true };

export class InsufficientStorage extends HttpError {
  constructor() {
    super(507);
  }
}

export function createTusService(deps: TusServiceDeps) {
  const { repo, staging, locks, files, events, log } = deps;
  const now = deps.now ?? Date.now;
  const me = staging.writerId;
  /** Background syncs whose offsets are not recorded yet. */
  const pending = new Set<Promise<void>>();

  /** Where the client continues: our kernel trusts every byte it received; anyone else only the recorded offset. */
  function currentOffset(u: UploadRecord, size: number): number {
    return u.writer === me ? size : Math.min(u.offset, size);
  }

  /** Records the chunk's end once its background sync is done; a failed sync withdraws the trust in unsynced bytes. */
  function recordWhenSynced(u: UploadRecord, reached: number, synced: Promise<void>): void {
    const p: Promise<void> = synced
      .then(
        () => repo.promote(u.id, reached, me, now()),
        async (err: unknown) => {
          log.error({ err, upload: u.id }, 'sync of an upload chunk failed; the client will send its unsynced bytes again');
          await repo.distrust(u.id, me);
        },
      )
      .catch((err: unknown) => log.warn({ err, upload: u.id }, 'could not record the synced offset'))
      .finally(() => pending.delete(p));
    pending.add(p);
  }

  /**
   * Another kernel answered bytes up to `offset` that it has not recorded yet (its
   * background sync may still run): wait a little for it. Returns the upload as it then stands.
   */
  async function awaitForeignSync(u: UploadRecord, offset: number): Promise<UploadRecord> {
    const deadline = Date.now() + FOREIGN_SYNC_WAIT_MS;
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const fresh = await repo.byId(u.id);
      if (!fresh) throw new NotFound();
      if (fresh.offset >= offset || fresh.writer === me || Date.now() >= deadline) return fresh;
    }
  }

  /** How long an unfinished upload's length stays promised after its last chunk (admitQuota). */
  const PROMISE_IDLE_MS = deps.promiseIdleMs ?? 10 * 60_000;
  /** How long one made with headers alone (no byte yet) stays promised (a client sends its first chunk at once). */
  const PROMISE_EMPTY_MS = Math.min(PROMISE_IDLE_MS, 60_000);

  /** S52: no PATCH for `uploadExpiry` seconds; such an upload is gone even before the sweep runs. */
  function isExpired(u: UploadRecord): boolean {
    return deps.config.uploadExpiry > 0 && u.updatedAt < now() - deps.config.uploadExpiry * 1000;
  }

  /**
   * The quota check of an upload (features/quota): its whole `bytes`, plus the whole lengths of the
   * other unfinished uploads into the same scope — their bytes wait in the staging folder, where
   * the scope's measure does not see them, so without them several uploads started together
   * would each fit alone and pass the quota together. Kept in the database, so every instance
   * counts them. `own`: this upload's row; at its creation only the uploads created before it
   * count (below).
   */
  async function admitQuota(user: UserRecord, bytes: number, replacing: string | undefined, own?: UploadRecord, creating = false): Promise<void> {
    if (!deps.quota || !(user.quota > 0)) return;
    // Promises last while their upload is being sent: PROMISE_IDLE_MS after its last chunk (or its
    // creation), or its expiry if sooner. An upload created and left without bytes — a visitor of
    // an upload share can make them with headers alone — holds no room for longer; it is checked
    // again in full when it continues.
    const root = (await files.scopeRoot(user)).root;
    const promised = await promisedIn(root, own?.id, creating ? own : undefined);
    await deps.quota.admitMeasured(user, Math.max(0, bytes + promised), replacing, true);
  }

  /**
   * What the unfinished uploads into the folder `root` promise (admitQuota): their whole lengths,
   * less, for one that replaces a file, that file (the scope's measure counts it until the upload
   * lands over it). `except` and `olderThan` as in `promisedUnder`.
   */
  async function promisedIn(root: string, except?: string, olderThan?: UploadRecord): Promise<number> {
    const idle = deps.config.uploadExpiry > 0 ? Math.min(deps.config.uploadExpiry * 1000, PROMISE_IDLE_MS) : PROMISE_IDLE_MS;
    const since = { sending: now() - idle, empty: now() - PROMISE_EMPTY_MS };
    const [promised, replacers] = await Promise.all([
      repo.promisedUnder(root, since, except, olderThan),
      repo.replacingUnder(root, since, except, olderThan),
    ]);
    let replaced = 0;
    for (const r of replacers) replaced += Math.min(r.length, await fileSize(r.target));
    return Math.max(0, promised - replaced);
  }


  /**
   * A new upload's quota check, made once its row is in: uploads created at once (a client sends
   * several) each see the rows of those created before them, so the first ones that fit pass and
   * the others are refused — checked before the row, each would see none of the others. A refused
   * upload goes.
   */
  async function admitCreated(user: UserRecord, u: UploadRecord, replacing: string | undefined): Promise<void> {
    try {
      await admitQuota(user, u.length, replacing, u, true);
    } catch (err) {
      await drop(u, 'over the quota');
      throw err;
    }
  }



  /** Forgets an upload and deletes its staging bytes (S8: our own file, by id, never a link's target). */
  async function drop(u: UploadRecord, why: string): Promise<void> {
    const removed = await repo.remove(u.id);
    // Only the call that removed the row gives the share's count back (never twice).
    if (removed && u.shareHash) await deps.shareQuota.release(u.shareHash, u.length);
    await staging.remove(u.id);
    log.info({ upload: u.id, why }, 'upload dropped');
  }

  /** The caller's unfinished upload on this path; 404 when there is none (or it is someone else's). */
  async function ownUpload(actor: UploadActor, target: ScopedPath): Promise<UploadRecord> {
    const u = await repo.byTarget(target.real);
    // A visitor's upload is reached only through its share, even by the owner (docs/api.md §23.3).
    if (!u || u.userId !== actor.user.id || u.shareHash !== null) {
      if (actor.expiredJti) throw new Unauthorized();
      throw new NotFound();
    }
    if (actor.expiredJti && actor.expiredJti !== u.sessionJti) throw new Unauthorized();
    if (isExpired(u)) {
      await drop(u, 'expired');
      throw new NotFound();
    }
    return u;
  }

  /**
   * The end of an upload: the creation's checks again (permissions, rules, scope, override, the
   * target's shape) on the user as stored now, then the atomic move. A refusal drops the upload.
   */
  async function complete(u: UploadRecord, user: UserRecord, visitor?: ShareVisitor): Promise<string> {
    if (u.shareHash !== null) return completeForShare(u, visitor);
    let target: ScopedPath;
    try {
      if (!user.perm.create) throw new Forbidden();
      target = await files.resolve(user, canonicalPath(u.virtualPath), { forWrite: true });
      if (target.real !== u.target) throw new Conflict('the path now leads elsewhere');
      if (target.exists) {
        if (target.stat?.isDirectory()) throw new Conflict('a folder is in the way');
        if (!u.override) throw new Conflict();
        if (!user.perm.modify) throw new Forbidden();
      }
      if (await parentBlocked(target)) throw new Conflict('a file is in the way');
    } catch (err) {
      if (err instanceof HttpError && err.status < 500) await drop(u, `refused at the end: ${err.status}`);
      throw err;
    }
    const ctx: FileEventContext = { user, file: target, scopeRoot: target.root };
    // docs/api.md §16.5: on tus completion both hooks run after the data is written; failures are ignored.
    await events.before('upload', ctx).catch((err: unknown) => log.warn({ err }, 'before_upload failed (ignored for tus)'));
    try {
      await staging.commit(u.id, u.length, target, u.override);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        await drop(u, 'target appeared');
        throw new Conflict();
      }
      throw err;
    }
    await finished(u, ctx);
    return path.posix.basename(target.virtual);
  }

  async function finished(u: UploadRecord, ctx: FileEventContext): Promise<void> {
    await repo.remove(u.id);
    log.info({ upload: u.id, bytes: u.length, share: u.shareHash ? u.shareHash.slice(0, 4) : undefined }, 'upload finished');
    await events.after('upload', ctx, { ignoreFailures: true });
  }

  /**
   * A free name for a visitor's file in the shared folder: `name`, else "name (1)", "name (2)"…
   * Taken means anything there (a file, a folder, a link, even a dangling one) or an unfinished
   * upload other than `own`. Resolved as the owner, through the owner's rules (a denied name: 403).
   */
  async function freeTarget(v: ShareVisitor, name: string, own?: string): Promise<ScopedPath> {
    for (let n = 0; n < MAX_NAME_TRIES; n++) {
      const candidate = n === 0 ? name : suffixedName(name, n);
      const virtual = joinVirtual(v.folder.virtual, '/' + candidate);
      let target: ScopedPath;
      try {
        target = await files.resolve(v.owner, virtual, { forWrite: true, globalRules: v.globalRules });
      } catch (err) {
        // A link by that name leading out, or dangling: taken. A name the owner's rules deny: 403.
        if (err instanceof Forbidden && !(await files.isDenied(v.owner, virtual, { globalRules: v.globalRules }))) continue;
        throw err;
      }
      if (path.dirname(target.entry) !== v.folder.real) throw new NotFound(); // the folder moved under us
      if (target.exists || target.isSymlink) continue;
      const running = await repo.byTarget(target.real);
      if (running && running.id !== own) {
        if (!isExpired(running)) continue;
        await drop(running, 'expired');
      }
      return target;
    }
    throw new Conflict('no free name');
  }

  /**
   * docs/api.md §23.3, the end of a visitor's upload: the limits once more (the counts include
   * this upload), then the move under a name that is free now — never over anything (a no-clobber
   * link; a name taken meanwhile gets the next suffix). The hooks fire with the owner as the user.
   */
  async function completeForShare(u: UploadRecord, v: ShareVisitor | undefined): Promise<string> {
    let target: ScopedPath;
    try {
      if (!v || v.hash !== u.shareHash || v.owner.id !== u.userId) throw new NotFound();
      const t = v.terms;
      if (t.maxFileSize > 0 && u.length > t.maxFileSize) throw new LimitReached('file-size');
      if (t.maxFiles > 0 && t.files > t.maxFiles) throw new LimitReached('files');
      if (t.maxBytes > 0 && t.bytes > t.maxBytes) throw new LimitReached('bytes');
      target = await freeTarget(v, path.posix.basename(u.virtualPath), u.id);
    } catch (err) {
      if (err instanceof HttpError && err.status < 500) await drop(u, `refused at the end: ${err.status}`);
      throw err;
    }
    for (let attempt = 0; ; attempt++) {
      const ctx: FileEventContext = { user: v.owner, file: target, scopeRoot: target.root };
      await events.before('upload', ctx).catch((err: unknown) => log.warn({ err }, 'before_upload failed (ignored for tus)'));
      try {
        await staging.commit(u.id, u.length, target, false);
        await finished(u, ctx);
        return path.posix.basename(target.virtual);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
            await drop(u, 'no free name at the end');
            throw new Conflict();
          }
          throw err;
        }
        target = await freeTarget(v, path.posix.basename(target.virtual), u.id);
      }
    }
  }

  /** POST, step 1: docs/api.md §13.2's checks in their order; the target and the length in bytes. */
  async function admitCreation(
    user: UserRecord,
    raw: string,
    length: ParsedInt,
    override: boolean,
  ): Promise<{ target: ScopedPath; bytes: number }> {
    const target = await files.resolve(user, raw, { forWrite: true });
    if (target.trailingSlash || target.virtual === '/' || target.stat?.isDirectory()) throw new BadRequest('the target is a folder');
    if (target.exists && !override) throw new Conflict();
    if (target.exists && !user.perm.modify) throw new Forbidden();
    const bytes = lengthOf(length);
    if (deps.config.maxUploadSize > 0 && bytes > deps.config.maxUploadSize) throw new PayloadTooLarge();
    const running = await repo.byTarget(target.real);
    if (running && !isExpired(running)) throw new Conflict('an upload to this path is in progress');
    if (running) await drop(running, 'expired');
    if (await parentBlocked(target)) throw new Conflict('a file is in the way');
    if (bytes > 0 && bytes > (await staging.freeBytes())) throw new InsufficientStorage();
    // The quota: once the row is in (admitCreated).
    return { target, bytes };
  }

  /**
   * POST, step 2: the row (whose unique target is S53 across instances) and then the empty staging
   * file, written by this kernel; the row goes again if the file cannot be made.
   */
  async function register(actor: UploadActor & { jti: string }, target: ScopedPath, length: number, override: boolean, shareHash: string | null = null): Promise<UploadRecord> {
    const t = now();
    const u: UploadRecord = {
      id: randomBytes(16).toString('hex'),
      target: target.real,
      virtualPath: target.virtual,
      userId: actor.user.id,
      sessionJti: actor.jti,
      length,
      offset: 0,
      override,
      createdAt: t,
      updatedAt: t,
      writer: me,
      shareHash,
    };
    try {
      await repo.insert(u);
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict('an upload to this path is in progress');
      throw err;
    }
    try {
      await staging.create(u.id);
    } catch (err) {
      await repo.remove(u.id);
      throw err;
    }
    log.info({ upload: u.id, length: u.length }, 'upload created');
    return u;
  }

  /** PATCH, step 1 (no lock yet): docs/api.md §13.4's checks up to the caller's upload and its length. */
  async function locateChunk(actor: UploadActor, raw: string, input: ChunkInput): Promise<{ upload: UploadRecord; offset: number }> {
    const target = await files.resolve(actor.user, raw, { forWrite: true });
    if (!input.offset.ok) throw new BadRequest(input.offset.reason === 'missing' ? 'Upload-Offset is required' : 'invalid Upload-Offset');
    const offset = input.offset.value;
    const upload = await ownUpload(actor, target);
    if (offset > upload.length) throw new BadRequest('Upload-Offset is past the upload length');
    if (target.stat?.isDirectory()) throw new BadRequest('the target is a folder');
    return { upload, offset };
  }

  /**
   * PATCH, step 2 (under the lock): the upload as it stands now and where this kernel says it
   * continues; the client's offset must be exactly that (409). Bytes another kernel received past
   * the recorded offset are waited for a little (its sync may be about to be recorded), then 423.
   */
  async function reconcileOffset(upload: UploadRecord, offset: number): Promise<{ u: UploadRecord; size: number }> {
    let u = await repo.byId(upload.id);
    if (!u) throw new NotFound();
    let size = await staging.size(u.id);
    if (size === null) {
      await drop(u, 'staging file missing');
      throw new NotFound();
    }
    let current = currentOffset(u, size);
    if (offset !== current && u.writer !== me && offset > u.offset && offset <= size) {
      u = await awaitForeignSync(u, offset);
      size = (await staging.size(u.id)) ?? 0;
      current = currentOffset(u, size);
      // Still unconfirmed (its writer crashed?): 423 is retried, and the retry starts with a
      // HEAD, which reports the recorded offset.
      if (offset !== current && u.writer !== me) throw new Locked();
    }
    if (offset !== current) throw new Conflict();
    return { u, size };
  }

  /**
   * PATCH, step 3: an upload last written by another kernel is taken over — bytes past the
   * recorded offset may be what a crash left, so they go, and a sync of the previous writer that
   * lands now is no longer recorded. Our own upload only has its S52 clock refreshed now and then.
   */
  async function takeOverOrTouch(u: UploadRecord, offset: number, size: number): Promise<void> {
    if (u.writer !== me) {
      const recorded = await repo.claim(u.id, me, now());
      if (recorded === undefined) throw new NotFound();
      if (recorded > offset) await repo.lowerOffset(u.id, offset);
      if (size > offset) await staging.truncate(u.id, offset);
    } else if (now() - u.updatedAt >= TOUCH_EVERY_MS) {
      await repo.touch(u.id, now());
    }
  }

  /**
   * PATCH, last chunk: synced before anything else (a finished upload is durable when the client
   * hears so), then `complete`. A failure of the sync or the move itself (not a refusal) steps
   * back one chunk, so that the client's retry redoes it and the completion runs again; HEAD never
   * reports a finished upload that is not in place.
   */
  async function finishUpload(u: UploadRecord, offset: number, synced: Promise<void>, user: UserRecord, visitor?: ShareVisitor): Promise<string> {
    try {
      try {
        await synced;
      } catch (err) {
        await repo.distrust(u.id, me);
        throw err;
      }
      return await complete({ ...u, offset: u.length }, user, visitor);
    } catch (err) {
      if (!(err instanceof HttpError && err.status < 500) && (await repo.byId(u.id))) {
        await staging.truncate(u.id, offset).catch(() => undefined);
        await repo.lowerOffset(u.id, offset);
      }
      throw err;
    }
  }

  /** HEAD's answer: where the client continues, and the length. */
  async function stateOf(u: UploadRecord): Promise<{ offset: number; length: number }> {
    const size = await staging.size(u.id);
    if (size === null) {
      await drop(u, 'staging file missing');
      throw new NotFound();
    }
    return { offset: currentOffset(u, size), length: u.length };
  }

  /** docs/api.md §13.2: `Upload-Length` present and well-formed (400), representable (413). */
  function lengthOf(length: ParsedInt): number {
    if (length.ok) return length.value;
    if (length.reason === 'too-large') throw new PayloadTooLarge();
    throw new BadRequest(length.reason === 'missing' ? 'Upload-Length is required' : 'invalid Upload-Length');
  }

  /** A visitor's unfinished upload of this share, by its id; 404 for any other. */
  async function visitorUpload(v: ShareVisitor, id: string): Promise<UploadRecord> {
    const u = UPLOAD_ID.test(id) ? await repo.byId(id) : undefined;
    if (!u || u.shareHash !== v.hash || u.userId !== v.owner.id) throw new NotFound();
    if (isExpired(u)) {
      await drop(u, 'expired');
      throw new NotFound();
    }
    return u;
  }

  /** PATCH, from the lock on (signed-in and visitors' uploads alike). */
  async function appendTo(upload: UploadRecord, offset: number, input: ChunkInput, user: UserRecord, visitor?: ShareVisitor): Promise<ChunkOutcome> {
    let u = upload;
    const release = await locks.acquire(u.id, { onReleaseRequest: input.stop });
    try {
      let size: number;
      ({ u, size } = await reconcileOffset(u, offset));
      const room = u.length - offset;
      if (input.declaredLength !== undefined && input.declaredLength > room) throw new PayloadTooLarge();
      // The scope may have filled up since the creation (other uploads finished, files were
      // copied): the whole file must still fit, or no byte of this chunk is written.
      if (room > 0) await admitQuota(user, u.length, u.override ? u.target : undefined, u);
      await takeOverOrTouch(u, offset, size);
      const r = await staging.writeChunk(u.id, offset, input.body, room);
      if (r.overflow) throw new PayloadTooLarge();
      const reached = offset + r.written;
      if (reached === u.length) {
        const name = await finishUpload(u, offset, r.synced, user, visitor);
        return { offset: reached, complete: true, aborted: false, name };
      }
      if (r.written > 0) recordWhenSynced(u, reached, r.synced);
      if (r.aborted) return { offset: reached, aborted: true };
      return { offset: reached, complete: false, aborted: false };
    } catch (err) {
      if (DISK_FULL.has((err as NodeJS.ErrnoException).code ?? '')) {
        log.warn({ upload: u.id }, 'disk full during an upload; the chunk was dropped');
        throw new InsufficientStorage();
      }
      throw err;
    } finally {
      await release();
    }
  }

  return {
    /** Bytes the unfinished uploads into the real folder `root` promise (the quota's other writes count them). */
    promisedIn: (root: string): Promise<number> => promisedIn(root),

    /** Waits for the background syncs to be recorded (before the database closes). */
    async drain(): Promise<void> {
      while (pending.size) await Promise.allSettled([...pending]);
    },

    /** POST: registers an upload (docs/api.md §13.2 steps, S50, S53). Returns the canonical virtual path. */
    async create(actor: UploadActor & { jti: string }, raw: string, length: ParsedInt, override: boolean): Promise<string> {
      const { target, bytes } = await admitCreation(actor.user, raw, length, override);
      const u = await register(actor, target, bytes, override);
      await admitCreated(actor.user, u, target.exists ? target.real : undefined);
      // A zero-length upload is complete at once (tus-js-client sends no PATCH for it).
      if (u.length === 0) await complete(u, actor.user);
      return target.virtual;
    },

    /** HEAD: offset and length of the caller's upload. */
    async status(actor: UploadActor, raw: string): Promise<{ offset: number; length: number }> {
      const target = await files.resolve(actor.user, raw);
      const u = await ownUpload(actor, target);
      return stateOf(u);
    },

    /** PATCH: appends one chunk (docs/api.md §13.4 check order, S50); completes the upload at its length. */
    async append(actor: UploadActor, raw: string, input: ChunkInput): Promise<ChunkOutcome> {
      const { upload, offset } = await locateChunk(actor, raw, input);
      return appendTo(upload, offset, input, actor.user);
    },

    /**
     * POST through an upload share (docs/api.md §23.3): the limits and the free space are checked
     * and the upload counted against the share before any byte is accepted; the file gets a
     * cleaned, free name in the shared folder. Returns the upload's id and that name.
     */
    async createForShare(v: ShareVisitor, rawName: string, length: ParsedInt): Promise<{ id: string; name: string }> {
      const bytes = lengthOf(length);
      const t = v.terms;
      if (t.maxFileSize > 0 && bytes > t.maxFileSize) throw new LimitReached('file-size');
      if (deps.config.maxUploadSize > 0 && bytes > deps.config.maxUploadSize) throw new PayloadTooLarge();
      if (bytes > 0 && bytes > (await staging.freeBytes())) throw new InsufficientStorage();
      const name = cleanUploadName(rawName);
      if (!(await deps.shareQuota.reserve(v.hash, bytes))) {
        // Which limit, from the counts as they are now (others may have counted since `terms` was read).
        const now = (await deps.shareQuota.byHash(v.hash))?.upload ?? t;
        throw new LimitReached(now.maxFiles > 0 && now.files + 1 > now.maxFiles ? 'files' : 'bytes');
      }
      let u: UploadRecord | undefined;
      try {
        // Two visitors may pick the same free name at once: the unique target decides, the other tries on.
        for (let attempt = 0; !u; attempt++) {
          const target = await freeTarget(v, name);
          try {
            u = await register({ user: v.owner, jti: '' }, target, bytes, false, v.hash);
          } catch (err) {
            if (!(err instanceof Conflict) || attempt >= 3) throw err;
          }
        }
      } catch (err) {
        await deps.shareQuota.release(v.hash, bytes);
        throw err;
      }
      // A visitor's file counts against the share owner's scope (a refusal gives the share's count back).
      await admitCreated(v.owner, u, undefined);
      // Until the end the visitor hears only the cleaned name wished for: the suffix chosen now
      // would say which names the folder holds, and a DELETE would leave no trace of the asking.
      const placed = u.length === 0 ? await complete(u, v.owner, v) : name;
      return { id: u.id, name: placed };
    },

    /** HEAD through an upload share: offset and length of the visitor's upload `id`. */
    async statusForShare(v: ShareVisitor, id: string): Promise<{ offset: number; length: number }> {
      const u = await visitorUpload(v, id);
      return stateOf(u);
    },

    /** PATCH through an upload share: as `append`, on the upload named by its id. */
    async appendForShare(v: ShareVisitor, id: string, input: ChunkInput): Promise<ChunkOutcome> {
      if (!input.offset.ok) throw new BadRequest(input.offset.reason === 'missing' ? 'Upload-Offset is required' : 'invalid Upload-Offset');
      const offset = input.offset.value;
      const u = await visitorUpload(v, id);
      if (offset > u.length) throw new BadRequest('Upload-Offset is past the upload length');
      return appendTo(u, offset, input, v.owner, v);
    },

    /** DELETE through an upload share: the visitor gives up an unfinished upload (its count is given back). */
    async terminateForShare(v: ShareVisitor, id: string): Promise<void> {
      const u = await visitorUpload(v, id);
      const release = await locks.acquire(u.id);
      try {
        await drop(u, 'terminated');
      } finally {
        await release();
      }
    },

    /** DELETE: cancels the caller's upload (any running chunk is stopped first). */
    async terminate(actor: UploadActor, raw: string): Promise<void> {
      const target = await files.resolve(actor.user, raw);
      if (target.virtual === '/') throw new Forbidden();
      const u = await ownUpload(actor, target);
      const release = await locks.acquire(u.id);
      try {
        await drop(u, 'terminated');
      } finally {
        await release();
      }
    },

    /** Removes uploads without a PATCH for `uploadExpiry` (S52) and staging files nobody knows. */
    async sweep(): Promise<number> {
      let removed = 0;
      if (deps.config.uploadExpiry > 0) {
        const cutoff = now() - deps.config.uploadExpiry * 1000;
        for (const id of await repo.staleIds(cutoff)) {
          const release = await locks.tryAcquire(id);
          if (!release) continue;
          try {
            const u = await repo.byId(id);
            if (await repo.removeIfStale(id, cutoff)) {
              if (u?.shareHash) await deps.shareQuota.release(u.shareHash, u.length);
              await staging.remove(id);
              removed++;
              log.info({ upload: id }, 'upload expired');
            }
          } finally {
            await release();
          }
        }
      }
      const known = await repo.allIds();
      for (const f of await staging.list()) {
        if (known.has(f.id) || now() - f.mtimeMs < ORPHAN_GRACE_MS) continue;
        await staging.remove(f.id);
        log.info({ upload: f.id }, 'orphan staging file removed');
      }
        return removed;
    },
  };
}
export type TusService = ReturnType<typeof createTusService>;
