/**
 * The upload share page's plain rules (docs/api.md §23): what a refusal tells the visitor, and the
 * files this browser sent through a link, kept in localStorage per share (the server lists nothing).
 */

export type RefusalKey = 'tooLarge' | 'noRoom' | 'full' | 'diskFull' | 'tooMany' | 'gone' | 'password' | 'failed';

/** A refused or failed upload, with what the visitor reads for it. */
export class UploadRefused extends Error {
  constructor(readonly key: RefusalKey) {
    super(key);
  }
}

/** What the visitor reads for a refused upload (docs/api.md §23.3); the key under `uploadShare.`. */
export function refusalKey(status: number, limit: string | null): RefusalKey {
  if (limit === 'file-size') return 'tooLarge';
  if (limit === 'bytes') return 'noRoom';
  if (limit === 'files') return 'full';
  if (status === 507) return 'diskFull';
  if (status === 429) return 'tooMany';
  if (status === 404) return 'gone';
  if (status === 401) return 'password';
  return 'failed';
}

export interface SentFile {
  name: string;
  size: number;
  /** Unix milliseconds. */
  at: number;
}

/** At most this many names are remembered per share (the oldest go). */
export const SENT_KEPT = 200;
const key = (hash: string) => `coffer.uploadShare.${hash}`;

export function sentFiles(hash: string, storage: Pick<Storage, 'getItem'> = localStorage): SentFile[] {
  try {
    const v: unknown = JSON.parse(storage.getItem(key(hash)) ?? '[]');
    if (!Array.isArray(v)) return [];
    return v.filter((f): f is SentFile => typeof f?.name === 'string' && typeof f?.size === 'number' && typeof f?.at === 'number');
  } catch {
    return [];
  }
}

export function rememberSent(hash: string, file: SentFile, storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage): SentFile[] {
  const list = [file, ...sentFiles(hash, storage)].slice(0, SENT_KEPT);
  try {
    storage.setItem(key(hash), JSON.stringify(list));
  } catch {
    // full or refused storage: the list lives for this page only
  }
  return list;
}
