/**
 * A read-only reader of BoltDB files (the bbolt on-disk format, version 2), enough to read File
 * Browser's database without Go. It works on the whole file in memory (a copy: the file itself
 * is never opened for writing, and a lock held by a running File Browser does not matter).
 *
 * Format, as bbolt writes it (native byte order, little-endian on every platform File Browser ships for):
 * - the file is a sequence of pages of `pageSize` bytes; page 0 and 1 are meta pages, the one with
 *   the higher transaction id whose checksum holds is current;
 * - a page starts with a 16-byte header: id u64, flags u16 (1 branch, 2 leaf, 4 meta, 16 freelist),
 *   count u16, overflow u32 (the page continues over `overflow` more pages);
 * - meta (after the header): magic u32 0xED0CDAED, version u32 = 2, pageSize u32, flags u32,
 *   root bucket {root pgid u64, sequence u64}, freelist pgid u64, high-water pgid u64, txid u64,
 *   checksum u64 = FNV-1a 64 of the 56 bytes before it;
 * - branch element (16 bytes): pos u32, ksize u32, child pgid u64; leaf element (16 bytes): flags
 *   u32 (1 = the value is a bucket), pos u32, ksize u32, vsize u32; `pos` counts from the element;
 * - a bucket value is {root pgid u64, sequence u64}; root 0 means an inline bucket whose leaf page
 *   (header and elements) follows in the value itself.
 * Every offset read from the file is bounds-checked; a damaged file raises BoltFormatError.
 */

export class BoltFormatError extends Error {
  override name = 'BoltFormatError';
}

const MAGIC = 0xed0cdaed;
const VERSION = 2;
const PAGE_HEADER = 16;
const ELEMENT = 16;
const META_CHECKSUMMED = 56;
const BRANCH = 0x01;
const LEAF = 0x02;
const META = 0x04;
const BUCKET_LEAF = 0x01;
/** Deeper than any real tree of a few million keys; stops a page cycle in a damaged file. */
const MAX_DEPTH = 64;
const PAGE_SIZES = [4096, 8192, 16384, 32768, 65536, 1024, 2048];

interface Meta {
  pageSize: number;
  root: number;
  hwm: number;
  txid: bigint;
}

export type BoltEntry = { key: Buffer; value: Buffer; bucket?: undefined } | { key: Buffer; bucket: BoltBucket; value?: undefined };

function fnv1a64(bytes: Buffer): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

function safeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new BoltFormatError(`damaged file: ${what} is out of range`);
  return Number(v);
}

type MetaRead = { ok: true; meta: Meta } | { ok: false; why: 'short' | 'magic' | 'version' | 'checksum' };

function readMeta(data: Buffer, at: number): MetaRead {
  if (at + PAGE_HEADER + META_CHECKSUMMED + 8 > data.length) return { ok: false, why: 'short' };
  const m = at + PAGE_HEADER;
  if (data.readUInt32LE(m) !== MAGIC) return { ok: false, why: 'magic' };
  if (data.readUInt32LE(m + 4) !== VERSION) return { ok: false, why: 'version' };
  if (fnv1a64(data.subarray(m, m + META_CHECKSUMMED)) !== data.readBigUInt64LE(m + META_CHECKSUMMED)) return { ok: false, why: 'checksum' };
  if ((data.readUInt16LE(at + 8) & META) === 0) return { ok: false, why: 'checksum' };
  return {
    ok: true,
    meta: {
      pageSize: data.readUInt32LE(m + 8),
      root: safeNumber(data.readBigUInt64LE(m + 16), 'the root page'),
      hwm: safeNumber(data.readBigUInt64LE(m + 40), 'the page count'),
      txid: data.readBigUInt64LE(m + 48),
    },
  };
}

/** A region holding one page: a real page (with its overflow) or an inline bucket's value. */
interface PageView {
  buf: Buffer;
  flags: number;
  count: number;
  where: string;
}

interface WalkState {
  seen: Set<number>;
  bytes: number;
}

export class BoltBucket {
  /** @internal */
  constructor(
    private readonly db: BoltDb,
    private readonly page: PageView | number,
    private readonly depth: number,
  ) {}

  /** Every key of this bucket in key order: values, and nested buckets (read lazily). */
  *entries(): Generator<BoltEntry> {
    yield* this.db.walk(this.page, this.depth, { seen: new Set(), bytes: 0 });
  }

  /** The value stored under `key` (not a bucket), or undefined. */
  get(key: string | Buffer): Buffer | undefined {
    const k = typeof key === 'string' ? Buffer.from(key) : key;
    for (const e of this.entries()) if (e.value && e.key.equals(k)) return e.value;
    return undefined;
  }

  /** The nested bucket `name`, or undefined. */
  bucket(name: string | Buffer): BoltBucket | undefined {
    const k = typeof name === 'string' ? Buffer.from(name) : name;
    for (const e of this.entries()) if (e.bucket && e.key.equals(k)) return e.bucket;
    return undefined;
  }
}

export class BoltDb {
  readonly pageSize: number;
  readonly txid: bigint;
  readonly root: BoltBucket;
  private readonly hwm: number;

  constructor(private readonly data: Buffer) {
    const meta = chooseMeta(data);
    this.pageSize = meta.pageSize;
    this.txid = meta.txid;
    this.hwm = meta.hwm;
    if (meta.hwm < 2 || meta.root < 2 || meta.root >= meta.hwm) throw new BoltFormatError('damaged file: the meta page points outside the database');
    const needed = meta.hwm * meta.pageSize;
    if (data.length < needed) {
      throw new BoltFormatError(`the file is truncated: it has ${data.length} bytes, the database needs ${needed} (${meta.hwm} pages of ${meta.pageSize})`);
    }
    this.root = new BoltBucket(this, meta.root, 0);
  }

  /** @internal A page by id, with its overflow pages, checked against the file. */
  pageAt(id: number): PageView {
    if (!Number.isSafeInteger(id) || id < 2 || id >= this.hwm) throw new BoltFormatError(`damaged file: a reference to page ${id}, outside the database`);
    const start = id * this.pageSize;
    const ownId = this.data.readBigUInt64LE(start);
    if (ownId !== BigInt(id)) throw new BoltFormatError(`damaged file: page ${id} calls itself page ${ownId}`);
    const overflow = this.data.readUInt32LE(start + 12);
    if (id + overflow >= this.hwm) throw new BoltFormatError(`damaged file: page ${id} runs past the end of the database`);
    const end = start + (overflow + 1) * this.pageSize;
    return { buf: this.data.subarray(start, end), flags: this.data.readUInt16LE(start + 8), count: this.data.readUInt16LE(start + 10), where: `page ${id}` };
  }

  /**
   * @internal Entries of the tree rooted at `page`, in key order. `state.bytes` counts the keys and
   * values handed out: in a sound file they never overlap, so they add up to less than the file;
   * more means entries share bytes (a small file that would read as gigabytes).
   */
  *walk(page: PageView | number, depth: number, state: WalkState): Generator<BoltEntry> {
    const { seen } = state;
    if (depth > MAX_DEPTH) throw new BoltFormatError('damaged file: the tree is deeper than any real database');
    let view: PageView;
    if (typeof page === 'number') {
      if (seen.has(page)) throw new BoltFormatError(`damaged file: page ${page} is reached twice`);
      seen.add(page);
      view = this.pageAt(page);
    } else {
      view = page;
    }
    if (view.flags === BRANCH) {
      for (let i = 0; i < view.count; i++) {
        const e = element(view, i);
        const child = safeNumber(view.buf.readBigUInt64LE(e + 8), 'a page reference');
        yield* this.walk(child, depth + 1, state);
      }
      return;
    }
    if (view.flags !== LEAF) throw new BoltFormatError(`damaged file: ${view.where} is neither a branch nor a leaf page (flags ${view.flags})`);
    for (let i = 0; i < view.count; i++) {
      const e = element(view, i);
      const flags = view.buf.readUInt32LE(e);
      const pos = view.buf.readUInt32LE(e + 4);
      const ksize = view.buf.readUInt32LE(e + 8);
      const vsize = view.buf.readUInt32LE(e + 12);
      const kStart = e + pos;
      const vEnd = kStart + ksize + vsize;
      if (vEnd > view.buf.length) throw new BoltFormatError(`damaged file: an entry of ${view.where} runs past its page`);
      state.bytes += ksize + vsize;
      if (state.bytes > this.data.length) throw new BoltFormatError(`damaged file: the entries of ${view.where} overlap (they add up to more bytes than the file)`);
      const key = view.buf.subarray(kStart, kStart + ksize);
      const value = view.buf.subarray(kStart + ksize, vEnd);
      if (flags & BUCKET_LEAF) yield { key, bucket: this.nested(value, key, depth) };
      else yield { key, value };
    }
  }

  private nested(value: Buffer, key: Buffer, depth: number): BoltBucket {
    const name = JSON.stringify(key.toString('utf8'));
    if (value.length < 16) throw new BoltFormatError(`damaged file: bucket ${name} has a short header`);
    const root = safeNumber(value.readBigUInt64LE(0), 'a bucket root');
    if (root !== 0) return new BoltBucket(this, root, depth + 1);
    // Inline bucket: a leaf page inside the value.
    const buf = value.subarray(16);
    if (buf.length < PAGE_HEADER) throw new BoltFormatError(`damaged file: inline bucket ${name} is too short`);
    return new BoltBucket(this, { buf, flags: buf.readUInt16LE(8), count: buf.readUInt16LE(10), where: `inline bucket ${name}` }, depth + 1);
  }
}

function element(view: PageView, i: number): number {
  const e = PAGE_HEADER + i * ELEMENT;
  if (e + ELEMENT > view.buf.length) throw new BoltFormatError(`damaged file: ${view.where} lists more entries than it holds`);
  return e;
}

function chooseMeta(data: Buffer): Meta {
  if (data.length < 2 * 1024) throw new BoltFormatError(`not a BoltDB database: the file is too short (${data.length} bytes)`);
  const first = readMeta(data, 0);
  const sizes = first.ok ? [first.meta.pageSize] : PAGE_SIZES;
  let second: MetaRead = { ok: false, why: 'short' };
  for (const size of sizes) {
    second = readMeta(data, size);
    if (second.ok) break;
  }
  const valid = [first, second].filter((m): m is { ok: true; meta: Meta } => m.ok).map((m) => m.meta);
  if (valid.length === 0) {
    const reasons = [first, second].map((m) => (m.ok ? '' : m.why));
    if (reasons.every((r) => r === 'magic' || r === 'short')) throw new BoltFormatError('not a BoltDB database (no BoltDB header)');
    if (reasons.includes('version')) throw new BoltFormatError('a BoltDB file of an unknown format version');
    throw new BoltFormatError('damaged file: no meta page passes its checksum');
  }
  const meta = valid.reduce((a, b) => (b.txid > a.txid ? b : a));
  if (meta.pageSize < 1024 || meta.pageSize > 1 << 20 || (meta.pageSize & (meta.pageSize - 1)) !== 0) {
    throw new BoltFormatError(`damaged file: page size ${meta.pageSize}`);
  }
  return meta;
}

/** Parses a BoltDB file held in memory; throws BoltFormatError with a reason when it is not one or is damaged. */
export function openBolt(data: Buffer): BoltDb {
  return new BoltDb(data);
}
