/**
 * Resources (docs/api.md §7, S2–S13, S51, S54, S81, S85): what each verb checks, in which order, and
 * which fs/ operation it runs between the `before` and `after` events (docs/api.md §16.4).
 */
import type { FileInfo, Rule } from '@coffer/protocol';
import type { UserRecord } from '../users/repository.js';
import type { EventBus, FileEvent, FileEventContext } from '../../events/index.js';
import { BadRequest, Conflict, Forbidden, MethodNotAllowed, NotFound } from '../../http/errors.js';
import { overrideFlag, queryFlag } from '../../http/query.js';
import { canonicalPath, type CanonicalPath } from '../../fs/canonical.js';
import { writeAtomic, keepDirs, type ByteSource, type WriteIo } from '../../fs/atomic.js';
import { describe, listFolderJsonPieces, type ResourceItem } from '../../fs/listing.js';
import {
  checksum,
  checkTree,
  copyTree,
  isWithin,
  moveTree,
  permissionBits,
  readHead,
  readText,
  removeTree,
  CHECKSUM_ALGOS,
  type ChecksumAlgo,
} from '../../fs/ops.js';
import { etagOf } from '../../fs/format.js';
import { isInside, type ScopedPath } from '../../fs/resolve.js';
import type { FileService } from '../../fs/service.js';
import { findSubtitles } from '../../fs/subtitles.js';
import { detectType, HEADER_BYTES, MAX_TEXT_SIZE, type ResourceType } from '../../fs/types.js';
import { walk, type WalkEntry } from '../../fs/walk.js';
import type { QuotaService } from '../quota/service.js';

export type { FileInfo };

export interface ResourceDeps {
  files: FileService;
  events: EventBus;
  /** S48: drop the shares of a deleted or moved path (absent until shares exist). */
  removeShares?: (user: UserRecord, target: ScopedPath) => Promise<unknown>;
  /** docs/api.md §22: moves a resolved item to the trash; false when the trash is off. */
  trash?: (user: UserRecord, target: ScopedPath, globalRules: readonly Rule[]) => Promise<boolean>;
  /** Injectable write calls (tests make them fail with ENOSPC). */
  io?: () => WriteIo | undefined;
  /** The file index's recursive sizes of a folder's children (features/index); null when it cannot answer. */
  folderSizes?: (real: string) => Promise<{ children: ReadonlyMap<string, number> } | null>;
  /** Byte quotas: uploads, saves and copies are admitted before any byte is written (absent in some unit tests). */
  quota?: Pick<QuotaService, 'limit' | 'admitMeasured' | 'changed'>;
}

export type WriteOutcome = { etag: string };

function ctxOf(user: UserRecord, file: ScopedPath, destination?: ScopedPath): FileEventContext {
  return { user: { id: user.id, username: user.username, scope: user.scope }, file, destination, scopeRoot: file.root };
}

/** `base(N)ext` with N = 1, 2, … (docs/api.md §7.9: `a.txt` → `a(1).txt`, `x.tar.gz` → `x.tar(1).gz`). */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? `${name}(${n})` : `${name.slice(0, dot)}(${n})${name.slice(dot)}`;
}

/** PATCH's query as the copy/move step takes it (docs/api.md §7.9). */
export interface CopyMoveInput {
  action: 'copy' | 'rename';
  /**
   * As received; checked after the permission (the order of docs/api.md §7.9) and made canonical by
   * `patch`. WebDAV passes the Destination header's path already canonical.
   */
  destination: string | CanonicalPath | undefined;
  /** `override=true`: replace what is at the destination. */
  override: boolean;
  /** `rename=true`: if the destination is taken, use the first free `name(N).ext`. */
  autoRename: boolean;
}

/** The PATCH query → CopyMoveInput; an action other than copy or rename is 400 (the first check). */
export function copyMoveInput(q: { action?: string; destination?: string; override?: string; rename?: string }): CopyMoveInput {
  const { action } = q;
  if (action !== 'copy' && action !== 'rename') throw new BadRequest('unknown action');
  return { action, destination: q.destination, override: overrideFlag(q), autoRename: queryFlag(q.rename) };
}

/** The query's `destination`: decoded once by the router, once more here (a `+` is a space), then S1. */
export function destinationPath(raw: string | CanonicalPath | undefined): CanonicalPath {
  if (typeof raw === 'object') return raw;
  if (raw === undefined || raw === '') throw new BadRequest('missing destination');
  return canonicalPath(raw.replace(/\+/g, ' '), { decode: true });
}

export function createResourceService(deps: ResourceDeps) {
  const { files, events } = deps;
  const io = () => deps.io?.();
  /** The body, counted against the user's quota (a declared length is judged before the first byte). */
  const quotaLimited = (user: UserRecord, body: () => ByteSource, declared: number | undefined, target: ScopedPath) =>
    deps.quota
      ? deps.quota.limit(user, body, { declared, freeing: target.exists && target.stat?.isFile() ? target.stat.size : 0, target: target.real })
      : body;
  /** A write that failed landed nothing: its body's hold (features/quota) goes now, not after the landing time. */
  const unheldOnFailure = <T>(p: ScopedPath, write: Promise<T>): Promise<T> =>
    write.catch((err: unknown) => {
      deps.quota?.changed(p.real);
      throw err;
    });

  async function run<T>(event: FileEvent, ctx: FileEventContext, op: () => Promise<T>): Promise<T> {
    await events.before(event, ctx);
    const out = await op();
    await events.after(event, ctx);
    return out;
  }

  async function typeOf(user: UserRecord, p: ScopedPath, base: ResourceItem): Promise<ResourceType> {
    const regular = !!p.stat?.isFile();
    const head = regular ? await readHead(p, HEADER_BYTES) : undefined;
    return detectType({ name: base.name, size: base.size, special: !regular, head, sniff: files.typeDetectionByHeader, canModify: user.perm.modify });
  }

  return {
    /** GET: a folder listing or a file's metadata (content only for text ≤ 10 MiB with download, S10, S81). */
    async get(
      user: UserRecord,
      rawPath: string,
      opts: { checksum?: string; rawText: boolean },
    ): Promise<{ listing: AsyncIterable<Buffer> } | { info: FileInfo } | { stream: ScopedPath; size: number }> {
      const globalRules = await files.globalRules();
      const p = await files.resolve(user, rawPath, { globalRules, mustExist: true });
      if (p.stat?.isDirectory()) {
        const sizes = (await deps.folderSizes?.(p.real))?.children;
        return { listing: await listFolderJsonPieces(p, user, globalRules, sizes) };
      }
      if (opts.checksum !== undefined || opts.rawText) {
        if (!user.perm.download) throw new Forbidden('downloading needs the download permission');
      }
      let algo: ChecksumAlgo | undefined;
      if (opts.checksum !== undefined) {
        if (!(CHECKSUM_ALGOS as readonly string[]).includes(opts.checksum)) throw new BadRequest('unknown checksum algorithm');
        algo = opts.checksum as ChecksumAlgo;
      }
      const base = await describe(p);
      const info: FileInfo = { ...base, type: await typeOf(user, p, base) };
      const isText = info.type === 'text' || info.type === 'textImmutable';
      if (algo) {
        info.checksums = { [algo]: await checksum(p, algo) };
        return { info };
      }
      if (opts.rawText && isText) return { stream: p, size: info.size };
      if (isText && user.perm.download && info.size > 0 && info.size <= MAX_TEXT_SIZE) {
        const content = await readText(p, MAX_TEXT_SIZE);
        if (content) info.content = content;
      }
      if (info.type === 'video' && user.perm.download) {
        const subs = await findSubtitles(p, user, globalRules);
        if (subs.length) info.subtitles = subs;
      }
      return { info };
    },

    /** GET recursive: every descendant, depth first, rules and hidden files applied. */
    async recursive(user: UserRecord, rawPath: string, signal?: AbortSignal): Promise<AsyncIterable<WalkEntry>> {
      const globalRules = await files.globalRules();
      const p = await files.resolve(user, rawPath, { globalRules, mustExist: true });
      if (!p.stat?.isDirectory()) throw new BadRequest('not a folder');
      return walk(p, { user, globalRules, signal });
    },

    /** POST: a folder (trailing slash) or a file from the body, atomically (S11, S51, S54). */
    async create(user: UserRecord, rawPath: string, body: () => ByteSource, override: boolean, declared?: number): Promise<WriteOutcome | null> {
      const canon = canonicalPath(rawPath);
      const p = await files.resolve(user, canon, { forWrite: true });
      const ctx = ctxOf(user, p);
      if (canon.trailingSlash || canon.path === '/') {
        if (p.exists && !p.stat?.isDirectory()) throw new Conflict('a file has that name');
        await run('upload', ctx, () => keepDirs(p.real, io()));
        return null;
      }
      if (p.exists) {
        if (p.stat?.isDirectory()) throw new Conflict('a folder has that name');
        if (!override) throw new Conflict('the file exists');
        if (!user.perm.modify) throw new Forbidden('replacing a file needs the modify permission');
      }
      const limited = await quotaLimited(user, body, declared, p);
      const written = await run('upload', ctx, () =>
        unheldOnFailure(p, writeAtomic(p, limited(), { exclusive: !p.exists, mode: p.exists ? permissionBits(p) : undefined, io: io() })),
      );
      return { etag: etagOf(written.mtimeNs, written.size) };
    },

    /** PUT: new content for an existing file (S11: modify). */
    async save(user: UserRecord, rawPath: string, body: () => ByteSource, declared?: number): Promise<WriteOutcome> {
      const canon = canonicalPath(rawPath);
      if (canon.trailingSlash) throw new MethodNotAllowed();
      const p = await files.resolve(user, canon, { forWrite: true, mustExist: true });
      if (p.stat?.isDirectory()) throw new BadRequest('cannot save a folder');
      if (!p.stat?.isFile()) throw new BadRequest('not a regular file');
      const limited = await quotaLimited(user, body, declared, p);
      const written = await run('save', ctxOf(user, p), () =>
        unheldOnFailure(p, writeAtomic(p, limited(), { exclusive: false, mode: permissionBits(p), io: io() })),
      );
      return { etag: etagOf(written.mtimeNs, written.size) };
    },

    /**
     * DELETE: a file, a link or a folder tree; denied descendants stay (S7); the scope root never
     * (S13). With the trash on it goes there, and its shares stay (they work again once restored).
     */
    async remove(user: UserRecord, rawPath: string): Promise<void> {
      const canon = canonicalPath(rawPath);
      if (canon.path === '/') throw new Forbidden('the scope root cannot be deleted');
      const globalRules = await files.globalRules();
      const p = await files.resolve(user, canon, { globalRules, mustExist: true });
      await run('delete', ctxOf(user, p), async () => {
        if (await deps.trash?.(user, p, globalRules)) return;
        await removeTree(p, { user, globalRules, io: io() });
        await deps.removeShares?.(user, p);
      });
    },

    /** PATCH: copy or rename/move (docs/api.md §7.9 checks, S3, S7, S11, S13). */
    async patch(user: UserRecord, rawPath: string, input: CopyMoveInput): Promise<void> {
      const { action, override, autoRename } = input;
      if (action === 'copy' && !user.perm.create) throw new Forbidden('copying needs the create permission');
      if (action === 'rename' && !user.perm.rename) throw new Forbidden('moving needs the rename permission');
      const srcCanon = canonicalPath(rawPath);
      let dstCanon = destinationPath(input.destination);
      const globalRules: readonly Rule[] = await files.globalRules();
      const src = await files.resolve(user, srcCanon, { globalRules });
      let dst = await files.resolve(user, dstCanon, { globalRules, forWrite: true });
      if (src.virtual === '/' || dst.virtual === '/') throw new Forbidden('the scope root is not an operand');
      if (src.virtual !== dst.virtual && isWithin(src.virtual, dst.virtual)) throw new BadRequest('cannot put a folder inside itself');
      if (!src.exists) throw new NotFound();
      if (src.stat?.isDirectory() && !src.isSymlink && dst.real !== src.real && isInside(src.real, dst.real)) {
        throw new BadRequest('cannot put a folder inside itself');
      }
      const sameEntry = src.entry === dst.entry;
      if (autoRename && (dst.exists || sameEntry)) {
        const parent = dstCanon.path.slice(0, dstCanon.path.lastIndexOf('/')) || '/';
        const name = dstCanon.path.slice(dstCanon.path.lastIndexOf('/') + 1);
        for (let n = 1; ; n++) {
          if (n > 10_000) throw new Conflict('no free name');
          dstCanon = { path: (parent === '/' ? '' : parent) + '/' + numberedName(name, n), trailingSlash: false };
          dst = await files.resolve(user, dstCanon, { globalRules, forWrite: true });
          if (!dst.exists) break;
        }
      } else if (sameEntry) {
        throw new BadRequest('source and destination are the same');
      } else if (dst.exists) {
        if (!override) throw new Conflict('the destination exists');
        if (!user.perm.modify) throw new Forbidden('replacing needs the modify permission');
        const srcDir = !!src.stat?.isDirectory();
        const dstDir = !!dst.stat?.isDirectory();
        if (srcDir !== dstDir) throw new Conflict(srcDir ? 'a file is in the way' : 'a folder is in the way');
        if (action === 'rename' && dstDir) throw new Conflict('the destination folder exists');
      }
      await checkTree(src, dst.virtual, { user, globalRules, move: action === 'rename' });
      // A copy adds the source's bytes (less what it replaces); a move stays in the scope.
      if (action === 'copy') await deps.quota?.admitMeasured(user, src.real, dst.exists ? dst.real : undefined);
      const tree = { user, globalRules, io: io(), override };
      await run(action, ctxOf(user, src, dst), async () => {
        if (action === 'copy') return copyTree(src, dst, tree);
        await moveTree(src, dst, tree);
        await deps.removeShares?.(user, src);
      });
    },
  };
}

export type ResourceService = ReturnType<typeof createResourceService>;
