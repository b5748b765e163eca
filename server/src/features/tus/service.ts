/**
 * tus uploads (api.md §14, S50–S53): state in the database, bytes in the staging area, the
 * finished file renamed into place after the checks of the creation are made again.
 *
 * Durability (never lose a byte the client was told is stored, without an fsync per chunk):
 * a chunk is answered once its bytes are written; they are fdatasync'd in the background and only
 * then counted in the database's `upload_offset` (the durable offset). Bytes between that offset
 * and the staging file's end are trusted only by the kernel that wrote them (`writer`, a boot id):
 * it still holds them in its page cache, even if the process that wrote them died. Any other
 * kernel — this machine after a crash, another host — sees the durable offset: HEAD reports it
 * and the next PATCH cuts the file back to it, so the client (which keeps its file until the
 * upload is complete) sends the rest again. The last chunk is synced before the file is moved
 * into place and before it is answered, so a finished upload is durable when the client hears so.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { canonicalPath } from '../../fs/canonical.js';
import type { ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import { parentBlocked, type StagingArea } from '../../fs/staging.js';
import { BadRequest, Conflict, Forbidden, HttpError, NotFound, PayloadTooLarge, Unauthorized } from '../../http/errors.js';
import type { EventBus, FileEventContext } from '../../events/index.js';
import type { Metrics } from '../metrics/registry.js';
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
  metrics: Metrics;
  /** The files API's hook point (api.md §19.2: tus completion fires `upload`). */
  events: Pick<EventBus, 'before' | 'after'>;
  config: { maxUploadSize: number; uploadExpiry: number };
  log: FastifyBaseLogger;
  now?: () => number;
}

export interface ChunkInput {
  offset: ParsedInt;
  /** Content-Length of the PATCH, when declared. */
  declaredLength?: number;
  body: AsyncIterator<Buffer>;
  /** Stops this request's body (another request for the same upload is waiting). */
  stop: () => void;
}

export type ChunkOutcome = { offset: number; complete: boolean; aborted: false } | { offset: number; aborted: true };

export class InsufficientStorage extends HttpError {
  constructor() {
    super(507);
  }
}

export function createTusService(deps: TusServiceDeps) {
  const { repo, staging, locks, files, metrics, events, log } = deps;
  const now = deps.now ?? Date.now;
  const me = staging.writerId;
  /** Background syncs whose offsets are not recorded yet. */
  const pending = new Set<Promise<void>>();

  /** Where the client continues: our kernel trusts its own unsynced bytes; anyone else only the durable offset. */
  function currentOffset(u: UploadRecord, size: number): number {
    return u.writer === me ? size : Math.min(u.offset, size);
  }

  /** Counts the chunk as durable once its background sync is done; a failed sync withdraws the trust in unsynced bytes. */
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
   * Another kernel answered bytes up to `offset` that it has not confirmed as durable yet (its
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

  /** S52: no PATCH for `uploadExpiry` seconds; such an upload is gone even before the sweep runs. */
  function isExpired(u: UploadRecord): boolean {
    return deps.config.uploadExpiry > 0 && u.updatedAt < now() - deps.config.uploadExpiry * 1000;
  }

  async function refreshGauge(): Promise<void> {
    try {
      metrics.tusActive.set(await repo.count());
    } catch (err) {
      log.warn({ err }, 'could not count uploads');
    }
  }

  /** Forgets an upload and deletes its staging bytes (S8: our own file, by id, never a link's target). */
  async function drop(u: UploadRecord, why: string): Promise<void> {
    await repo.remove(u.id);
    await staging.remove(u.id);
    log.info({ upload: u.id, why }, 'upload dropped');
    await refreshGauge();
  }

  /** The caller's unfinished upload on this path; 404 when there is none (or it is someone else's). */
  async function ownUpload(actor: UploadActor, target: ScopedPath): Promise<UploadRecord> {
    const u = await repo.byTarget(target.real);
    if (!u || u.userId !== actor.user.id) {
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
  async function complete(u: UploadRecord, user: UserRecord): Promise<void> {
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
    // api.md §19.3: on tus completion both hooks run after the data is written; failures are ignored.
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
    await repo.remove(u.id);
    await refreshGauge();
    log.info({ upload: u.id, bytes: u.length }, 'upload finished');
    await events.after('upload', ctx, { ignoreFailures: true });
  }

  return {
    refreshGauge,

    /** Waits for the background syncs to be recorded (before the database closes). */
    async drain(): Promise<void> {
      while (pending.size) await Promise.allSettled([...pending]);
    },

    /** POST: registers an upload (api.md §14 steps, S50, S53). Returns the canonical virtual path. */
    async create(actor: UploadActor & { jti: string }, raw: string, length: ParsedInt, override: boolean): Promise<string> {
      const { user } = actor;
      const target = await files.resolve(user, raw, { forWrite: true });
      if (target.trailingSlash || target.virtual === '/' || target.stat?.isDirectory()) throw new BadRequest('the target is a folder');
      if (target.exists && !override) throw new Conflict();
      if (target.exists && !user.perm.modify) throw new Forbidden();
      if (!length.ok) {
        if (length.reason === 'too-large') throw new PayloadTooLarge();
        throw new BadRequest(length.reason === 'missing' ? 'Upload-Length is required' : 'invalid Upload-Length');
      }
      if (deps.config.maxUploadSize > 0 && length.value > deps.config.maxUploadSize) throw new PayloadTooLarge();
      const running = await repo.byTarget(target.real);
      if (running && !isExpired(running)) throw new Conflict('an upload to this path is in progress');
      if (running) await drop(running, 'expired');
      if (await parentBlocked(target)) throw new Conflict('a file is in the way');
      if (length.value > 0 && length.value > (await staging.freeBytes())) throw new InsufficientStorage();
      const t = now();
      const u: UploadRecord = {
        id: randomBytes(16).toString('hex'),
        target: target.real,
        virtualPath: target.virtual,
        userId: user.id,
        sessionJti: actor.jti,
        length: length.value,
        offset: 0,
        override,
        createdAt: t,
        updatedAt: t,
        writer: me,
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
      await refreshGauge();
      // A zero-length upload is complete at once (tus-js-client sends no PATCH for it).
      if (u.length === 0) await complete(u, user);
      return target.virtual;
    },

    /** HEAD: offset and length of the caller's upload. */
    async status(actor: UploadActor, raw: string): Promise<{ offset: number; length: number }> {
      const target = await files.resolve(actor.user, raw);
      const u = await ownUpload(actor, target);
      const size = await staging.size(u.id);
      if (size === null) {
        await drop(u, 'staging file missing');
        throw new NotFound();
      }
      return { offset: currentOffset(u, size), length: u.length };
    },

    /** PATCH: appends one chunk (api.md §14 check order, S50); completes the upload at its length. */
    async append(actor: UploadActor, raw: string, input: ChunkInput): Promise<ChunkOutcome> {
      const target = await files.resolve(actor.user, raw, { forWrite: true });
      if (!input.offset.ok) throw new BadRequest(input.offset.reason === 'missing' ? 'Upload-Offset is required' : 'invalid Upload-Offset');
      const offset = input.offset.value;
      let u = await ownUpload(actor, target);
      if (offset > u.length) throw new BadRequest('Upload-Offset is past the upload length');
      if (target.stat?.isDirectory()) throw new BadRequest('the target is a folder');
      const release = await locks.acquire(u.id, { onReleaseRequest: input.stop });
      try {
        const fresh = await repo.byId(u.id);
        if (!fresh) throw new NotFound();
        u = fresh;
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
          // HEAD, which reports the durable offset.
          if (offset !== current && u.writer !== me) throw new Locked();
        }
        if (offset !== current) throw new Conflict();
        const room = u.length - offset;
        if (input.declaredLength !== undefined && input.declaredLength > room) throw new PayloadTooLarge();
        if (u.writer !== me) {
          // Taking the upload over: bytes past the durable offset may be what a crash left, so
          // they go; a sync of the previous writer that lands now is no longer recorded.
          const durable = await repo.claim(u.id, me, now());
          if (durable === undefined) throw new NotFound();
          if (durable > offset) await repo.lowerOffset(u.id, offset);
          if (size > offset) await staging.truncate(u.id, offset);
        } else if (now() - u.updatedAt >= TOUCH_EVERY_MS) {
          await repo.touch(u.id, now());
        }
        const r = await staging.writeChunk(u.id, offset, input.body, room);
        if (r.overflow) throw new PayloadTooLarge();
        const reached = offset + r.written;
        if (reached === u.length) {
          try {
            try {
              await r.synced;
            } catch (err) {
              await repo.distrust(u.id, me);
              throw err;
            }
            await complete({ ...u, offset: reached }, actor.user);
          } catch (err) {
            // A failure of the sync or the move itself (not a refusal): step back one chunk so
            // that the client's retry redoes it and the completion runs again; HEAD never
            // reports a finished upload that is not in place.
            if (!(err instanceof HttpError && err.status < 500) && (await repo.byId(u.id))) {
              await staging.truncate(u.id, offset).catch(() => undefined);
              await repo.lowerOffset(u.id, offset);
            }
            throw err;
          }
          return { offset: reached, complete: true, aborted: false };
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
            if (await repo.removeIfStale(id, cutoff)) {
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
      await refreshGauge();
      return removed;
    },
  };
}
export type TusService = ReturnType<typeof createTusService>;
