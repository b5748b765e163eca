import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resealMeta, writeBolt, type BoltTree } from '../../test/bolt-writer.js';
import { BoltFormatError, openBolt, type BoltBucket } from './boltdb.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURE = path.resolve(repo, '../shared/fixtures/filebrowser-db/filebrowser.db');

function names(b: BoltBucket): string[] {
  return [...b.entries()].map((e) => e.key.toString());
}

function dump(b: BoltBucket): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of b.entries()) out[e.key.toString('hex')] = e.bucket ? dump(e.bucket) : e.value.toString('hex');
  return out;
}

function tree(obj: Record<string, unknown>): BoltTree {
  return new Map(Object.entries(obj).map(([k, v]) => [k, typeof v === 'string' || Buffer.isBuffer(v) ? v : tree(v as Record<string, unknown>)]));
}

describe('BoltDB reader on File Browser’s database', () => {
  const file = readFileSync(FIXTURE);

  it('lists the top-level buckets and reads values through nested and inline buckets', () => {
    const db = openBolt(file);
    expect(db.pageSize).toBe(4096);
    expect(names(db.root)).toEqual(['Link', 'User', '__storm_db', 'config']);
    const config = db.root.bucket('config')!;
    expect(config.get('version')!.toString()).toBe('2');
    expect(JSON.parse(config.get('server')!.toString())).toMatchObject({ root: '/srv', port: '8080' });
    // storm's metadata bucket is a small inline bucket
    expect(config.bucket('__storm_metadata')!.get('codec')!.toString()).toBe('json');
    const users = db.root.bucket('User')!;
    const first = users.get(Buffer.from('0000000000000001', 'hex'))!;
    expect(JSON.parse(first.toString())).toMatchObject({ id: 1, username: 'admin' });
    const idx = users.bucket('__storm_index_Username')!;
    expect(idx.get('bob')!.readBigUInt64BE(0)).toBe(3n);
    // two levels deep: Link/__storm_index_Hash/storm__ids
    expect(names(db.root.bucket('Link')!.bucket('__storm_index_Hash')!.bucket('storm__ids')!)).toEqual(['I2bn0M_B', 'Ob8fa6jv', 'X40uVLOL', 'uwOWxVr5']);
  });

  it('reads the newer meta page, and the older one when the newer is damaged', () => {
    const copy = Buffer.from(file);
    const db = openBolt(copy);
    const newer = db.txid;
    // meta 0 has txid 14 in the fixture, meta 1 has 13: break meta 0's checksum
    const at = copy.readBigUInt64LE(16 + 48) > copy.readBigUInt64LE(4096 + 16 + 48) ? 0 : 4096;
    copy[at + 16 + 20] ^= 0xff;
    const older = openBolt(copy);
    expect(older.txid).toBe(newer - 1n);
    expect(names(older.root)).toContain('User');
  });
});

describe('BoltDB reader on written files', () => {
  it('reads branch pages above many leaves, in key order', () => {
    const keys = Array.from({ length: 250 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    const file = writeBolt(tree({ big: Object.fromEntries(keys.map((k) => [k, `v-${k}`])) }), { maxLeafEntries: 7 });
    const big = openBolt(file).root.bucket('big')!;
    expect(names(big)).toEqual(keys);
    expect(big.get('k0123')!.toString()).toBe('v-k0123');
    expect(big.get('nope')).toBeUndefined();
  });

  it('reads a value that spans overflow pages', () => {
    const value = randomBytes(3 * 4096 + 17);
    const file = writeBolt(tree({ b: { small: 'x', large: value } }));
    const b = openBolt(file).root.bucket('b')!;
    expect(b.get('large')!.equals(value)).toBe(true);
    expect(b.get('small')!.toString()).toBe('x');
  });

  it('reads deep nesting, inline and page buckets alike', () => {
    const t = { a: { b: { c: { leaf: 'deep' } }, inl: { x: '1' } }, z: 'top' };
    const file = writeBolt(tree(t), { inlineMax: 64 });
    const db = openBolt(file);
    expect(db.root.bucket('a')!.bucket('b')!.bucket('c')!.get('leaf')!.toString()).toBe('deep');
    expect(db.root.bucket('a')!.bucket('inl')!.get('x')!.toString()).toBe('1');
    expect(db.root.get('z')!.toString()).toBe('top');
    expect(db.root.get('a')).toBeUndefined(); // a bucket is not a value
    expect(dump(db.root)).toEqual(dump(openBolt(writeBolt(tree(t), { inlineMax: 0 })).root));
  });

  it('works with other page sizes', () => {
    const file = writeBolt(tree({ b: { k: 'v' } }), { pageSize: 16384 });
    expect(openBolt(file).root.bucket('b')!.get('k')!.toString()).toBe('v');
  });
});

describe('BoltDB reader refuses what is not a sound BoltDB file', () => {
  const good = writeBolt(tree({ b: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'v'.repeat(100)])) }), { maxLeafEntries: 10 });

  const refused = (data: Buffer, msg: RegExp) => {
    expect(() => [...openBolt(data).root.entries()].forEach((e) => e.bucket && [...e.bucket.entries()])).toThrow(BoltFormatError);
    expect(() => [...openBolt(data).root.entries()].forEach((e) => e.bucket && [...e.bucket.entries()])).toThrow(msg);
  };

  it('an empty file, a short file and random bytes', () => {
    refused(Buffer.alloc(0), /not a BoltDB database.*too short/);
    refused(randomBytes(100), /too short/);
    refused(randomBytes(64 * 1024), /not a BoltDB database/);
    refused(Buffer.from('{"users": []}'.padEnd(8192)), /not a BoltDB database/);
  });

  it('a truncated file', () => {
    refused(good.subarray(0, good.length - 4096), /truncated/);
    refused(good.subarray(0, 5000), /truncated/);
  });

  it('both meta pages with a wrong checksum', () => {
    const bad = Buffer.from(good);
    bad[16 + 24] ^= 1;
    bad[4096 + 16 + 24] ^= 1;
    refused(bad, /checksum/);
  });

  it('an unknown format version', () => {
    const bad = Buffer.from(good);
    for (const at of [0, 4096]) {
      bad.writeUInt32LE(3, at + 20);
      resealMeta(bad, at);
    }
    refused(bad, /format version/);
  });

  it('a meta page pointing past the file, a page reference out of range, a page cycle', () => {
    const past = Buffer.from(good);
    for (const at of [0, 4096]) {
      past.writeBigUInt64LE(999n, at + 16 + 16);
      resealMeta(past, at);
    }
    refused(past, /outside the database/);
    // the bucket's branch page: point its first child at itself
    const db = openBolt(good);
    const rootPage = Number(good.readBigUInt64LE(4096 + 16 + 16));
    const elemAt = rootPage * 4096 + 16;
    const bucketValueAt = elemAt + good.readUInt32LE(elemAt + 4) + good.readUInt32LE(elemAt + 8);
    const branch = Number(good.readBigUInt64LE(bucketValueAt));
    expect(db.pageSize).toBe(4096);
    const cycle = Buffer.from(good);
    cycle.writeBigUInt64LE(BigInt(branch), branch * 4096 + 16 + 8);
    refused(cycle, /reached twice/);
    const far = Buffer.from(good);
    far.writeBigUInt64LE(12345n, branch * 4096 + 16 + 8);
    refused(far, /outside the database/);
  });

  it('an entry running past its page, a page of the wrong kind', () => {
    const rootPage = Number(good.readBigUInt64LE(4096 + 16 + 16));
    const long = Buffer.from(good);
    long.writeUInt32LE(1 << 30, rootPage * 4096 + 16 + 12);
    refused(long, /runs past its page/);
    const kind = Buffer.from(good);
    kind.writeUInt16LE(0x10, rootPage * 4096 + 8);
    refused(kind, /neither a branch nor a leaf/);
  });

  it('entries that all point at one large value (a small file read as gigabytes), an overflow count past the end, nesting deeper than any real file', () => {
    const big = 'x'.repeat(64 * 1024);
    const file = writeBolt(tree({ b: { ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${String(i).padStart(3, '0')}`, 'v'])), zbig: big } }));
    const b = openBolt(file).root.bucket('b')!;
    const bigValue = b.get('zbig')!;
    const bigAt = bigValue.byteOffset - file.byteOffset;
    // the leaf holding the 201 entries (in the first page of its run): every element points at zbig
    let leaf = -1;
    for (let p = 2 * 4096; p < file.length; p += 4096) if (file.readUInt16LE(p + 8) === 0x02 && file.readUInt16LE(p + 10) === 201) leaf = p;
    expect(leaf).toBeGreaterThan(0);
    const amplified = Buffer.from(file);
    for (let i = 0; i < 201; i++) {
      const e = leaf + 16 + i * 16;
      amplified.writeUInt32LE(bigAt - 4 - e, e + 4);
      amplified.writeUInt32LE(4, e + 8);
      amplified.writeUInt32LE(bigValue.length, e + 12);
    }
    refused(amplified, /entries of page \d+ overlap|more bytes than the file/);
    const overflow = Buffer.from(file);
    overflow.writeUInt32LE(0xffffffff, leaf + 12);
    refused(overflow, /runs past the end/);
    let deep: Record<string, unknown> = { leaf: 'v' };
    for (let i = 0; i < 70; i++) deep = { [`n${i}`]: deep };
    const nested = openBolt(writeBolt(tree(deep), { inlineMax: 0 }));
    expect(() => {
      let at: BoltBucket = nested.root;
      for (;;) {
        const next = [...at.entries()].find((e) => e.bucket);
        if (!next?.bucket) break;
        at = next.bucket;
      }
    }).toThrow(/deeper than any real database/);
  });
});
