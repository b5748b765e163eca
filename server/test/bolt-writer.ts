/**
 * Test support: writes small BoltDB files (bbolt format version 2) from a tree of buckets, so the
 * reader can be tested on shapes the File Browser fixture does not hold (branch pages, overflow
 * pages, deep nesting) and on hand-made damage. Not a database: no freelist content, one transaction.
 */
export type BoltTree = Map<string | Buffer, Buffer | string | BoltTree>;

export interface BoltWriteOptions {
  pageSize?: number;
  /** At most this many entries per leaf page; more make a branch page above the leaves. */
  maxLeafEntries?: number;
  /** A bucket without sub-buckets whose leaf page is at most this many bytes is stored inline. */
  inlineMax?: number;
}

const MAGIC = 0xed0cdaed;

function fnv1a64(bytes: Buffer): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

const asBuf = (v: string | Buffer) => (typeof v === 'string' ? Buffer.from(v) : v);

interface Elem {
  key: Buffer;
  value: Buffer;
  flags: number;
}

/** A page body: header, 16-byte elements, then each element's key (and value) after them. */
function pageBytes<T extends { key: Buffer; value?: Buffer }>(flags: number, items: T[], head: (buf: Buffer, at: number, pos: number, item: T) => void): Buffer {
  const size = 16 + items.length * 16 + items.reduce((n, e) => n + e.key.length + (e.value?.length ?? 0), 0);
  const buf = Buffer.alloc(size);
  buf.writeUInt16LE(flags, 8);
  buf.writeUInt16LE(items.length, 10);
  let data = 16 + items.length * 16;
  items.forEach((e, i) => {
    const at = 16 + i * 16;
    head(buf, at, data - at, e);
    e.key.copy(buf, data);
    e.value?.copy(buf, data + e.key.length);
    data += e.key.length + (e.value?.length ?? 0);
  });
  return buf;
}

function leafBytes(elems: Elem[]): Buffer {
  return pageBytes(0x02, elems, (buf, at, pos, e) => {
    buf.writeUInt32LE(e.flags, at);
    buf.writeUInt32LE(pos, at + 4);
    buf.writeUInt32LE(e.key.length, at + 8);
    buf.writeUInt32LE(e.value.length, at + 12);
  });
}

function branchBytes(children: { key: Buffer; id: number }[]): Buffer {
  return pageBytes(0x01, children, (buf, at, pos, c) => {
    buf.writeUInt32LE(pos, at);
    buf.writeUInt32LE(c.key.length, at + 4);
    buf.writeBigUInt64LE(BigInt(c.id), at + 8);
  });
}

export function writeBolt(tree: BoltTree, opts: BoltWriteOptions = {}): Buffer {
  const pageSize = opts.pageSize ?? 4096;
  const maxLeaf = opts.maxLeafEntries ?? 1000;
  const inlineMax = opts.inlineMax ?? pageSize / 4;
  const pages: Buffer[] = []; // from page 2 on, each already a multiple of pageSize
  let next = 2;

  function place(body: Buffer): number {
    const count = Math.max(1, Math.ceil(body.length / pageSize));
    const buf = Buffer.alloc(count * pageSize);
    body.copy(buf);
    const id = next;
    buf.writeBigUInt64LE(BigInt(id), 0);
    buf.writeUInt32LE(count - 1, 12);
    pages.push(buf);
    next += count;
    return id;
  }

  function writeBucket(t: BoltTree): { inline?: Buffer; root: number } {
    const elems: Elem[] = [...t.entries()]
      .map(([k, v]) => {
        if (v instanceof Map) {
          const sub = writeBucket(v);
          const header = Buffer.alloc(16);
          header.writeBigUInt64LE(BigInt(sub.root), 0);
          return { key: asBuf(k), value: sub.inline ? Buffer.concat([header, sub.inline]) : header, flags: 1 };
        }
        return { key: asBuf(k), value: asBuf(v), flags: 0 };
      })
      .sort((a, b) => Buffer.compare(a.key, b.key));
    const hasSub = elems.some((e) => e.flags === 1);
    const whole = leafBytes(elems);
    if (!hasSub && elems.length <= maxLeaf && whole.length <= inlineMax) return { inline: whole, root: 0 };
    if (elems.length <= maxLeaf) return { root: place(whole) };
    const children: { key: Buffer; id: number }[] = [];
    for (let i = 0; i < elems.length; i += maxLeaf) {
      const chunk = elems.slice(i, i + maxLeaf);
      children.push({ key: chunk[0]!.key, id: place(leafBytes(chunk)) });
    }
    return { root: place(branchBytes(children)) };
  }

  // The root bucket is always a real page.
  const rootElems = writeBucket(tree);
  const root = rootElems.inline ? place(rootElems.inline) : rootElems.root;
  const freelist = Buffer.alloc(pageSize);
  freelist.writeUInt16LE(0x10, 8);
  const freelistId = place(freelist);
  const hwm = next;
  const metas = [0, 1].map((id) => {
    const buf = Buffer.alloc(pageSize);
    buf.writeBigUInt64LE(BigInt(id), 0);
    buf.writeUInt16LE(0x04, 8);
    const m = 16;
    buf.writeUInt32LE(MAGIC, m);
    buf.writeUInt32LE(2, m + 4);
    buf.writeUInt32LE(pageSize, m + 8);
    buf.writeBigUInt64LE(BigInt(root), m + 16);
    buf.writeBigUInt64LE(BigInt(freelistId), m + 32);
    buf.writeBigUInt64LE(BigInt(hwm), m + 40);
    buf.writeBigUInt64LE(BigInt(id + 1), m + 48); // txid: meta 1 is the newer
    buf.writeBigUInt64LE(fnv1a64(buf.subarray(m, m + 56)), m + 56);
    return buf;
  });
  return Buffer.concat([...metas, ...pages]);
}

/** Recomputes a meta page's checksum after a test changed it. */
export function resealMeta(file: Buffer, metaOffset: number): void {
  const m = metaOffset + 16;
  file.writeBigUInt64LE(fnv1a64(file.subarray(m, m + 56)), m + 56);
}
