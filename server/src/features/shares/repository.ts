/** Kysely queries on `shares` — the only SQL about shares. */
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.js';
import type { SharesTable } from '../../db/schema.js';

/** A share as the server works with it. Never leaves the server as is: see present.ts. */
export interface ShareRecord {
  hash: string;
  /** Canonical path relative to the owner's scope; a trailing "/" sent at creation is kept. */
  path: string;
  userId: number;
  /** Unix seconds; 0 = permanent. */
  expire: number;
  /** "" when the share has no password. */
  passwordHash: string;
  /** Identity of the target at creation; "" when unknown (imported links). */
  dev: string;
  ino: string;
  /** Real location of the target at creation. */
  realPath: string;
  createdAt: number;
  /** SHA-256 (hex) of a File Browser download token kept at import; "" for Coffer's shares. */
  legacyTokenSha256?: string;
  /** `upload`: an upload-only share (docs/api.md §23); missing or `normal`: File Browser's kind. */
  kind?: ShareKind;
  /** Upload shares: what uploaders see and may send. Counters are read-only here (reserve/release). */
  upload?: UploadTerms;
}

export type ShareKind = 'normal' | 'upload';

export interface UploadTerms {
  message: string;
  /** Bytes per file, files in all, bytes in all; 0 = no limit. */
  maxFileSize: number;
  maxFiles: number;
  maxBytes: number;
  /** Uploads admitted so far (finished or running) and their bytes. */
  files: number;
  bytes: number;
}

function fromRow(r: Selectable<SharesTable>): ShareRecord {
  return {
    hash: r.hash,
    path: r.path,
    userId: Number(r.user_id),
    expire: Number(r.expire),
    passwordHash: r.password_hash,
    dev: r.dev,
    ino: r.ino,
    realPath: r.real_path,
    createdAt: Number(r.created_at),
    legacyTokenSha256: r.legacy_token_sha256,
    kind: r.kind === 'upload' ? 'upload' : 'normal',
    upload:
      r.kind === 'upload'
        ? {
            message: r.message,
            maxFileSize: Number(r.max_file_size),
            maxFiles: Number(r.max_files),
            maxBytes: Number(r.max_bytes),
            files: Number(r.files_taken),
            bytes: Number(r.bytes_taken),
          }
        : undefined,
  };
}

function toRow(s: ShareRecord) {
  return {
    hash: s.hash,
    path: s.path,
    user_id: s.userId,
    expire: s.expire,
    password_hash: s.passwordHash,
    dev: s.dev,
    ino: s.ino,
    real_path: s.realPath,
    created_at: s.createdAt,
    legacy_token_sha256: s.legacyTokenSha256 ?? '',
    kind: s.kind ?? 'normal',
    message: s.upload?.message ?? '',
    max_file_size: s.upload?.maxFileSize ?? 0,
    max_files: s.upload?.maxFiles ?? 0,
    max_bytes: s.upload?.maxBytes ?? 0,
  };
}

/** docs/api.md §14.1: by owner, then permanent links first, then soonest expiry; hash keeps it stable. */
function sorted(rows: Selectable<SharesTable>[]): ShareRecord[] {
  return rows
    .map(fromRow)
    .sort((a, b) => a.userId - b.userId || a.expire - b.expire || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
}

export function createShareRepository(db: Db) {
  const k = db.kysely;
  /** Rows not expired at `now` (0 = permanent). */
  const live = (now: number) =>
    k.selectFrom('shares').selectAll().where((eb) => eb.or([eb('expire', '=', 0), eb('expire', '>', now)]));
  return {
    async insert(s: ShareRecord): Promise<void> {
      await k.insertInto('shares').values(toRow(s)).execute();
    },
    /** Inserts, or replaces the share with the same hash (an import run again). */
    async upsert(s: ShareRecord): Promise<void> {
      const { hash: _hash, ...rest } = toRow(s);
      await k
        .insertInto('shares')
        .values(toRow(s))
        .onConflict((oc) => oc.column('hash').doUpdateSet(rest))
        .execute();
    },
    async byHash(hash: string): Promise<ShareRecord | undefined> {
      const r = await k.selectFrom('shares').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r && fromRow(r);
    },
    async listLive(now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).execute());
    },
    async listLiveByUser(userId: number, now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).where('user_id', '=', userId).execute());
    },
    async listLiveByUserPath(userId: number, path: string, now: number): Promise<ShareRecord[]> {
      return sorted(await live(now).where('user_id', '=', userId).where('path', '=', path).execute());
    },
    /** A user's shares plus every share whose real location is `real` or below it. */
    async candidatesUnder(userId: number, real: string): Promise<ShareRecord[]> {
      const prefix = real.endsWith('/') ? real : real + '/';
      // Both engines count characters (code points) in substr, not UTF-16 units.
      const chars = [...prefix].length;
      const rows = await k
        .selectFrom('shares')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('user_id', '=', userId),
            eb('real_path', '=', real),
            // substr(…, 1, n) exists in both engines; LIKE would need escaping of % and _.
            eb(eb.fn('substr', ['real_path', eb.val(1), eb.val(chars)]), '=', prefix),
          ]),
        )
        .execute();
      return rows.map(fromRow);
    },
    /** Moves the shares of one target identity at `realPath` to the target's new identity. */
    async retarget(realPath: string, from: { dev: string; ino: string }, to: { dev: string; ino: string }): Promise<number> {
      const r = await k
        .updateTable('shares')
        .set({ dev: to.dev, ino: to.ino })
        .where('real_path', '=', realPath)
        .where('dev', '=', from.dev)
        .where('ino', '=', from.ino)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    /**
     * Admits one upload of `length` bytes to the upload share `hash` if its file and byte limits
     * allow it, counting it in the same statement (so that concurrent creations, on any number
     * of instances, cannot pass a limit together). False: a limit is reached, or no such share.
     */
    async reserve(hash: string, length: number): Promise<boolean> {
      const r = await k
        .updateTable('shares')
        .set((eb) => ({ files_taken: eb('files_taken', '+', 1), bytes_taken: eb('bytes_taken', '+', length) }))
        .where('hash', '=', hash)
        .where('kind', '=', 'upload')
        .where((eb) => eb.or([eb('max_files', '=', 0), eb(eb('files_taken', '+', 1), '<=', eb.ref('max_files'))]))
        .where((eb) => eb.or([eb('max_bytes', '=', 0), eb(eb('bytes_taken', '+', length), '<=', eb.ref('max_bytes'))]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Gives back what `reserve` counted for an upload that will not finish. */
    async release(hash: string, length: number): Promise<void> {
      await k
        .updateTable('shares')
        .set((eb) => ({ files_taken: eb('files_taken', '-', 1), bytes_taken: eb('bytes_taken', '-', length) }))
        .where('hash', '=', hash)
        .where('files_taken', '>', 0)
        .execute();
    },
    async delete(hash: string): Promise<boolean> {
      const r = await k.deleteFrom('shares').where('hash', '=', hash).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async deleteMany(hashes: string[]): Promise<number> {
      let n = 0;
      // Bounded parameter lists (SQLite allows 32766 at most).
      for (let i = 0; i < hashes.length; i += 500) {
        const r = await k.deleteFrom('shares').where('hash', 'in', hashes.slice(i, i + 500)).executeTakeFirst();
        n += Number(r.numDeletedRows);
      }
      return n;
    },
    /** Deletes the shares expired at `now`; returns how many. */
    async deleteExpired(now: number): Promise<number> {
      const r = await k.deleteFrom('shares').where('expire', '!=', 0).where('expire', '<=', now).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Deletes the shares whose owner no longer exists. */
    async deleteOrphans(): Promise<number> {
      const r = await k
        .deleteFrom('shares')
        .where('user_id', 'not in', (eb) => eb.selectFrom('users').select('id'))
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
export type ShareRepository = ReturnType<typeof createShareRepository>;
