/**
 * The upload staging area (docs/api.md §13, S51): bytes of unfinished uploads live in
 * `<data dir>/uploads/<id>`, out of every user's sight, and move into place with one rename (or
 * a no-clobber link) once complete. Only this module touches the staging files.
 *
 * Same filesystem: the data dir should share the root's filesystem so that finishing an upload
 * is a rename. When it does not (or a scope folder is another mount), finishing falls back to
 * copy → fsync → rename inside the target's folder, which is still atomic for readers; start-up
 * only warns. That fallback is needed anyway because a mount inside the root can differ.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readdir, readFile, realpath, rename, stat, statfs, unlink, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { noteWritten } from './changes.js';
import { isPostgresUrl } from '../db/index.js';
import { makeDirs, release, takeBack } from './atomic.js';
import { createBatchWriter, WriteFailure } from './batch-writer.js';
import { TEMP_PREFIX } from './names.js';
import type { ScopedPath } from './resolve.js';
import { isInside } from './resolve.js';

/** S54: files 0640, folders 0750. */
export const STAGED_FILE_MODE = 0o640;
export const STAGED_DIR_MODE = 0o750;

const ID = /^[0-9a-f]{32}$/;

export interface DataDirChoice {
  /** Absolute path of the data directory. */
  dir: string;
  /** Why it was chosen when not given explicitly, or a warning for the operator. */
  warnings: string[];
}

/**
 * Where the data directory goes. `--data-dir` wins; the default is `<database folder>/coffer-data`
 * (PostgreSQL: `<parent of the root>/coffer-data`). A default that would fall inside the served
 * root (e.g. `coffer` started in the folder it serves) moves to `~/.local/state/coffer/<hash>`,
 * then to `<tmp>/coffer-data-<hash>`, so staged bytes are never in a user's folder.
 */
export async function chooseDataDir(config: { dataDir: string; database: string; root: string }, home = os.homedir(), tmp = os.tmpdir()): Promise<DataDirChoice> {
  const root = await realpath(path.resolve(config.root)).catch(() => path.resolve(config.root));
  const inside = async (p: string) => isInside(root, await realish(p));
  if (config.dataDir) {
    const dir = path.resolve(config.dataDir);
    const warnings = (await inside(dir))
      ? [`the data directory ${dir} lies inside the root: users whose scope includes it can see uploads in progress; choose a --data-dir outside the root`]
      : [];
    return { dir, warnings };
  }
  const tag = createHash('sha256').update(root).digest('hex').slice(0, 16);
  const first = isPostgresUrl(config.database)
    ? path.join(path.dirname(root), 'coffer-data')
    : path.join(path.dirname(path.resolve(config.database)), 'coffer-data');
  const candidates = [first, path.join(home, '.local', 'state', 'coffer', tag), path.join(tmp, `coffer-data-${tag}`)];
  for (const c of candidates) if (!(await inside(c))) return { dir: c, warnings: c === first ? [] : [`upload staging in ${c} (the default next to the database lies inside the root)`] };
  return {
    dir: first,
    warnings: [`the data directory ${first} lies inside the root: users whose scope includes it can see uploads in progress; set --data-dir outside the root`],
  };
}

/** realpath of the longest existing prefix + the rest (the folder may not exist yet). */
async function realish(p: string): Promise<string> {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(await realpath(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return path.resolve(p);
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

export interface ChunkResult {
  /** Bytes written at the offset (kept on disk unless `overflow`). */
  written: number;
  /** The body carried more than `max` bytes: nothing of it was kept (file truncated back). */
  overflow: boolean;
  /** The body stream failed (client gone): what arrived before is kept. */
  aborted: boolean;
  /**
   * Settles once the written bytes are on stable storage (fdatasync, in the background: the
   * chunk can be answered before). Rejects with the sync's error; the caller must handle it.
   */
  synced: Promise<void>;
}

export interface StagingArea {
  /** `<data dir>/uploads`. */
  readonly dir: string;
  /** The data dir and the served root are on the same device (rename is possible). */
  readonly sameDevice: boolean;
  /**
   * Who may trust bytes written to a staging file but not yet synced: every process under the
   * same running kernel (they share its page cache, and a kernel that crashed has a new id).
   * Linux: `boot:<boot id>`; elsewhere `process:<random>`, this process only.
   */
  readonly writerId: string;
  /** Creates the empty staging file `id` (fails if it exists). */
  create(id: string): Promise<void>;
  /** Current size of the staging file, null when it is missing. */
  size(id: string): Promise<number | null>;
  /**
   * Writes `body` at `offset`, at most `max` bytes; `synced` tells when they are durable. A body
   * longer than `max` is refused whole (file truncated back to `offset`); a write error truncates
   * back and throws; a body stream error keeps what was written (the client may resume from there).
   */
  writeChunk(id: string, offset: number, body: AsyncIterator<Buffer>, max: number): Promise<ChunkResult>;
  /** Cuts the staging file back to `size` bytes (fsynced); a file shorter than that is an error. */
  truncate(id: string, size: number): Promise<void>;
  /** Deletes the staging file (a regular file of ours only; never follows links, never recursive). */
  remove(id: string): Promise<void>;
  /**
   * Moves the complete staging file (exactly `length` bytes) to `target.real` after an fsync of
   * it, creating missing parent folders (0750). `override` false never replaces anything: an
   * entry that appeared meanwhile → EEXIST. Across devices: copy into the target folder, fsync,
   * then rename/link.
   */
  commit(id: string, length: number, target: ScopedPath, override: boolean): Promise<void>;
  /** Staging file names with their modification time (for the orphan sweep). */
  list(): Promise<{ id: string; mtimeMs: number }[]>;
  /** Bytes available to this process on the staging filesystem. */
  freeBytes(): Promise<number>;
}

function fileOf(dir: string, id: string): string {
  if (!ID.test(id)) throw new Error('bad staging id');
  return path.join(dir, id);
}

async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    await fh?.close();
  }
}

async function kernelId(): Promise<string> {
  try {
    const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
    if (boot) return `boot:${boot}`;
  } catch {
    // not Linux: trust only this process's own unsynced bytes
  }
  return `process:${randomBytes(16).toString('hex')}`;
}

/** True when something in the way of `real`'s parent folders is not a folder. */
export async function parentBlocked(target: ScopedPath): Promise<boolean> {
  let cur = path.dirname(target.real);
  while (isInside(target.root, cur)) {
    let st: Stats;
    try {
      st = await stat(cur);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') return true;
      if (code !== 'ENOENT') throw err;
      if (cur === target.root) return false;
      cur = path.dirname(cur);
      continue;
    }
    return !st.isDirectory();
  }
  return false;
}

/** The nearest existing folder at or above `p` (the data dir may not exist yet). */
async function nearestExisting(p: string): Promise<string> {
  let cur = path.resolve(p);
  for (;;) {
    try {
      await stat(cur);
      return cur;
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return cur;
      cur = parent;
    }
  }
}

/**
 * Opens the staging area under the data dir. The folders are created with the first upload, so
 * a server that never receives one leaves nothing behind.
 */
export async function openStaging(dataDir: string, serverRoot: string): Promise<StagingArea> {
  const dir = path.join(dataDir, 'uploads');
  const [a, b] = await Promise.all([stat(await nearestExisting(dir)), stat(path.resolve(serverRoot))]);
  const sameDevice = a.dev === b.dev;
  let made: Promise<unknown> | undefined;
  const ensureDir = async () => {
    made ??= mkdir(dir, { recursive: true, mode: STAGED_DIR_MODE }).catch((err: unknown) => {
      made = undefined;
      throw err;
    });
    await made;
  };

  async function moveInPlace(from: string, to: string, override: boolean): Promise<void> {
    if (override) {
      await rename(from, to);
    } else {
      // link() never replaces an existing entry: the no-clobber rename.
      await link(from, to);
      await unlink(from).catch(() => undefined);
    }
  }

  /** Moves the staged file to its name; across filesystems through a hidden copy beside it. */
  async function place(from: string, to: string, parent: string, override: boolean, id: string): Promise<void> {
    try {
      await moveInPlace(from, to, override);
      noteWritten(to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      const tmp = path.join(parent, `${TEMP_PREFIX}${id}`); // hidden from listings, not addressable
      try {
        await copyFile(from, tmp);
        const fh = await open(tmp, 'r+');
        try {
          await fh.chmod(STAGED_FILE_MODE);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await moveInPlace(tmp, to, override);
        noteWritten(to);
      } finally {
        await unlink(tmp).catch(() => undefined);
      }
      await unlink(from).catch(() => undefined);
    }
  }

  const writerId = await kernelId();

  return {
    dir,
    sameDevice,
    writerId,
    async create(id) {
      const file = fileOf(dir, id);
      await ensureDir();
      const fh = await open(file, 'wx', STAGED_FILE_MODE);
      await fh.close();
    },
    async size(id) {
      try {
        const st = await lstat(fileOf(dir, id));
        return st.isFile() ? st.size : null;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async writeChunk(id, offset, body, max) {
      const fh = await open(fileOf(dir, id), 'r+');
      const w = createBatchWriter({ write: async (bufs, at) => (await fh.writev(bufs, at)).bytesWritten, sync: () => fh.datasync() }, offset);
      let overflow = false;
      let aborted = false;
      let handedOver = false;
      try {
        try {
          // Pulled by hand: leaving a for-await loop would destroy the request (and the answer).
          for (;;) {
            const next = await body.next();
            if (next.done) break;
            if (w.accepted + next.value.length > max) {
              overflow = true;
              break;
            }
            const wait = w.push(next.value);
            if (wait) await wait;
          }
        } catch (err) {
          if (err instanceof WriteFailure) throw err.cause;
          aborted = true;
        }
        if (overflow) {
          await w.drop();
          await fh.truncate(offset);
          return { written: 0, overflow, aborted, synced: Promise.resolve() };
        }
        try {
          await w.end();
        } catch (err) {
          throw err instanceof WriteFailure ? err.cause : err;
        }
        // The chunk is answered now; its bytes become durable in the background.
        handedOver = true;
        if (w.written === 0) return { written: 0, overflow, aborted, synced: fh.close().catch(() => undefined) };
        const synced = w.sync().then(
          () => fh.close(),
          async (err: unknown) => {
            await fh.close().catch(() => undefined);
            throw err instanceof WriteFailure ? err.cause : err;
          },
        );
        return { written: w.written, overflow, aborted, synced };
      } catch (err) {
        // A failed write (full disk…): the chunk is dropped whole, the upload stays at `offset`.
        await w.drop();
        await fh.truncate(offset).catch(() => undefined);
        throw err;
      } finally {
        if (!handedOver) await fh.close();
      }
    },
    async truncate(id, size) {
      await truncateFile(fileOf(dir, id), size);
    },
    async remove(id) {
      const file = fileOf(dir, id);
      try {
        const st = await lstat(file);
        if (!st.isFile() && !st.isSymbolicLink()) return;
        await unlink(file); // unlink removes a link itself, never its target
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    },
    async commit(id, length, target, override) {
      const from = fileOf(dir, id);
      const to = target.real;
      const parent = path.dirname(to);
      // The missing parent folders are made now, and removed again if the file cannot be placed.
      const made = await makeDirs(parent);
      try {
        // Bytes past the declared length can only be left-overs of an interrupted chunk. The
        // fsync makes every chunk durable before the name points at it (S51).
        await truncateFile(from, length);
        await place(from, to, parent, override, id);
        release(made);
      } catch (err) {
        await takeBack(made);
        throw err;
      }
      await fsyncDir(parent);
    },
    async list() {
      const out: { id: string; mtimeMs: number }[] = [];
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
        throw err;
      }
      for (const name of names) {
        if (!ID.test(name)) continue;
        try {
          const st = await lstat(path.join(dir, name));
          out.push({ id: name, mtimeMs: st.mtimeMs });
        } catch {
          // gone meanwhile
        }
      }
      return out;
    },
    async freeBytes() {
      const s = await statfs(await nearestExisting(dir));
      return Number(s.bavail) * Number(s.bsize);
    },
  };
}

/** Cuts `file` to `size` bytes (never lengthens it: a shorter file is an error) and fsyncs it. */
async function truncateFile(file: string, size: number): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    const now = (await fh.stat()).size;
    if (now < size) throw new Error(`staging file ${path.basename(file)} holds ${now} of ${size} bytes`);
    if (now > size) await fh.truncate(size);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
