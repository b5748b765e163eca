/**
 * A crafted filebrowser.db is hostile input: File Browser's real database
 * (../shared/fixtures/filebrowser-db) mutated at random and at the fields that carry page ids,
 * counts and lengths must read and plan, or be refused with BoltFormatError / NotFileBrowserError,
 * each in bounded time: never another exception, a hang or a blow-up.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resealMeta } from '../../../test/bolt-writer.js';
import { BoltFormatError, NotFileBrowserError, readFileBrowserDb } from './filebrowser-db.js';
import { planImport } from './filebrowser-plan.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const FIXTURE = readFileSync(path.resolve(repo, '../shared/fixtures/filebrowser-db/filebrowser.db'));
const PAGE = 4096;
const NOW = 1_700_000_000;
/** Per file: the fixture reads in about a millisecond. */
const MAX_MS = 2000;

/** mulberry32: a seeded generator, so a failure names a seed that reproduces it. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EXTREMES = [0, 1, 2, 3, 0xff, 0xffff, 0x7fffffff, 0xffffffff, FIXTURE.length / PAGE, FIXTURE.length / PAGE - 1];

function mutate(seed: number): Buffer {
  const r = rng(seed);
  const data = Buffer.from(FIXTURE);
  const pages = data.length / PAGE;
  const n = 1 + Math.floor(r() * 8);
  for (let i = 0; i < n; i++) {
    const page = Math.floor(r() * pages) * PAGE;
    const pick = r();
    const v = EXTREMES[Math.floor(r() * EXTREMES.length)]!;
    if (pick < 0.3) data[Math.floor(r() * data.length)] = Math.floor(r() * 256);
    else if (pick < 0.45) data.writeUInt16LE(v & 0xffff, page + 10); // count
    else if (pick < 0.55) data.writeUInt32LE(v, page + 12); // overflow
    else if (pick < 0.65) data.writeUInt16LE([1, 2, 4, 16, 0][Math.floor(r() * 5)]!, page + 8); // flags
    else {
      // an element's pos, ksize, vsize or a branch's child id
      const e = page + 16 + 16 * Math.floor(r() * 8);
      const field = e + 4 * Math.floor(r() * 4);
      if (field + 4 <= data.length) data.writeUInt32LE(v, field);
    }
  }
  if (r() < 0.5) {
    // the meta pages too, resealed so that the checksum does not stop the mutation there
    const at = r() < 0.5 ? 0 : PAGE;
    const field = at + 16 + 8 + 4 * Math.floor(r() * 10);
    data.writeUInt32LE(EXTREMES[Math.floor(r() * EXTREMES.length)]!, field);
    resealMeta(data, at);
  }
  return data;
}

describe('crafted File Browser databases', () => {
  it('every mutation of the fixture is read or refused with a reason, quickly', () => {
    const deadline = Date.now() + 20_000;
    let runs = 0;
    let refused = 0;
    for (let seed = 1; seed <= 3000 && Date.now() < deadline; seed++) {
      const data = mutate(seed);
      const t0 = Date.now();
      try {
        planImport(readFileBrowserDb(data), NOW);
      } catch (err) {
        if (!(err instanceof BoltFormatError || err instanceof NotFileBrowserError)) throw new Error(`seed ${seed}: ${String(err)}`);
        refused++;
      }
      expect(Date.now() - t0, `seed ${seed}`).toBeLessThan(MAX_MS);
      runs++;
    }
    expect(runs).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);

  it('a config version nested too deep to print, or huge, is named without crashing', () => {
    const fb = readFileBrowserDb(FIXTURE);
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
    const p = planImport({ ...fb, version: deep }, NOW);
    expect(p.differences.join('\n')).toMatch(/config version .* File Browser 2.x writes 2/);
    const huge = planImport({ ...fb, version: 'v'.repeat(10_000_000) }, NOW);
    expect(huge.differences.join('\n').length).toBeLessThan(100_000);
  });
});
