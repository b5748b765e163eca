/**
 * File Browser's database (a BoltDB file written through storm with its JSON codec) read into
 * plain records. Only the layout is checked here; every field is still hostile and is checked by
 * filebrowser-plan.ts. Layout (File Browser 2.x):
 * - bucket `config`: keys `settings`, `server`, `auther`, `version` (JSON);
 * - bucket `User`: key = the user id as 8 bytes big-endian, value = the user's JSON;
 * - bucket `Link`: key = the share hash, value = the share's JSON;
 * - storm's own sub-buckets (`__storm_metadata` with the codec, `__storm_index_*`) are skipped.
 */
import { BoltFormatError, openBolt, type BoltBucket } from '../../lib/boltdb.js';

export class NotFileBrowserError extends Error {
  override name = 'NotFileBrowserError';
}

export interface FileBrowserRecord {
  /** The storm key, for messages ("user 3", "share X40uVLOL"). */
  key: string;
  /** The parsed JSON, or undefined when the value is not JSON (`error` says why). */
  value: unknown;
  error?: string;
}

export interface FileBrowserDb {
  settings: unknown;
  server: unknown;
  auther: unknown;
  version: unknown;
  users: FileBrowserRecord[];
  links: FileBrowserRecord[];
}

function parse(key: string, raw: Buffer): FileBrowserRecord {
  try {
    return { key, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { key, value: undefined, error: 'not JSON' };
  }
}

function checkCodec(bucket: BoltBucket, name: string): void {
  const codec = bucket.bucket('__storm_metadata')?.get('codec')?.toString('utf8');
  if (codec !== undefined && codec !== 'json') {
    throw new NotFileBrowserError(`bucket ${name} was written with storm's ${JSON.stringify(codec.slice(0, 40))} codec; only File Browser's json codec is read`);
  }
}

function records(bucket: BoltBucket | undefined, name: string, keyOf: (k: Buffer) => string): FileBrowserRecord[] {
  if (!bucket) return [];
  checkCodec(bucket, name);
  const out: FileBrowserRecord[] = [];
  for (const e of bucket.entries()) if (e.value) out.push(parse(keyOf(e.key), e.value));
  return out;
}

const userKey = (k: Buffer) => (k.length === 8 ? String(k.readBigUInt64BE(0)) : `0x${k.toString('hex').slice(0, 32)}`);
const textKey = (k: Buffer) => JSON.stringify(k.toString('utf8').slice(0, 128));

/**
 * Reads the whole database from its bytes. Throws BoltFormatError (not BoltDB, damaged) or
 * NotFileBrowserError (a BoltDB file without File Browser's buckets) before anything is returned.
 */
export function readFileBrowserDb(data: Buffer): FileBrowserDb {
  const db = openBolt(data);
  const config = db.root.bucket('config');
  const users = db.root.bucket('User');
  if (!config || !config.get('settings') || !users) {
    throw new NotFileBrowserError("not a File Browser database: a BoltDB file without File Browser's config and User buckets");
  }
  checkCodec(config, 'config');
  const one = (key: string) => {
    const raw = config.get(key);
    if (!raw) return undefined;
    const r = parse(key, raw);
    if (r.error) throw new NotFileBrowserError(`not a File Browser database: config ${key} is ${r.error}`);
    return r.value;
  };
  const out: FileBrowserDb = {
    settings: one('settings'),
    server: one('server'),
    auther: one('auther'),
    version: one('version'),
    users: records(users, 'User', userKey),
    links: records(db.root.bucket('Link'), 'Link', textKey),
  };
  return out;
}

export { BoltFormatError };
