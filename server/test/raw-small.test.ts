/**
 * GET /api/raw: answers (and single ranges) up to SMALL_BODY bytes are read into one buffer,
 * bigger ones streamed. Both ways give the same headers, bytes, ranges and validators.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SMALL_BODY } from '../src/http/send-file.js';
import { useServer } from './harness.js';

const srv = useServer();
let token: string;
const MTIME = new Date('2024-05-06T07:08:09Z');
const SIZES = [1000, SMALL_BODY, SMALL_BODY + 1, 300_000];
const content = (size: number) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 7 + size) % 251));
// What differs between two files by nature, or between two answers.
const PER_ANSWER = new Set(['date', 'x-request-id', 'content-length', 'content-range', 'etag', 'connection', 'keep-alive']);

beforeAll(async () => {
  token = await srv.login();
  await mkdir(path.join(srv.root, 'sizes'), { recursive: true });
  for (const size of SIZES) {
    const full = path.join(srv.root, 'sizes', `f${size}.bin`);
    await writeFile(full, content(size));
    await utimes(full, MTIME, MTIME);
  }
});

async function get(size: number, headers: Record<string, string> = {}, method = 'GET') {
  const res = await srv.fetch(`/api/raw/sizes/f${size}.bin`, { token, method, headers });
  const body = Buffer.from(await res.arrayBuffer());
  const all = Object.fromEntries(res.headers);
  // The file name (in Content-Disposition) is the only other difference between the files.
  const common = Object.fromEntries(
    Object.entries(all)
      .filter(([k]) => !PER_ANSWER.has(k))
      .map(([k, v]) => [k, v.replaceAll(`f${size}.bin`, 'f.bin')]),
  );
  return { status: res.status, headers: all, common, body };
}

describe('GET /api/raw: one buffer up to SMALL_BODY bytes, a stream above', () => {
  it('sends the same headers and the exact bytes for every size', async () => {
    const answers = await Promise.all(SIZES.map((size) => get(size)));
    answers.forEach((a, i) => {
      const size = SIZES[i]!;
      expect(a.status).toBe(200);
      expect(a.headers['content-length']).toBe(String(size));
      expect(a.body.equals(content(size)), `${size} bytes`).toBe(true);
      expect(a.common).toEqual(answers[0]!.common);
      expect(a.headers['etag']).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    });
    expect(answers[0]!.common).toMatchObject({
      'content-type': 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private',
      'accept-ranges': 'bytes',
      'last-modified': MTIME.toUTCString(),
    });
  });

  it('answers HEAD with the GET headers and no body', async () => {
    for (const size of SIZES) {
      const [g, h] = [await get(size), await get(size, {}, 'HEAD')];
      expect(h.status).toBe(200);
      expect(h.body.length).toBe(0);
      expect(h.headers['content-length']).toBe(String(size));
      expect(h.common).toEqual(g.common);
    }
  });

  it('serves the same single ranges from both', async () => {
    for (const size of SIZES) {
      const data = content(size);
      const cases: [string, number, number][] = [
        ['bytes=0-99', 0, 99],
        ['bytes=-100', size - 100, size - 1],
        [`bytes=${size - 50}-`, size - 50, size - 1],
        [`bytes=1-${size * 2}`, 1, size - 1],
      ];
      const answers = [];
      for (const [range, start, end] of cases) {
        const a = await get(size, { Range: range });
        expect(a.status, `${size} ${range}`).toBe(206);
        expect(a.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
        expect(a.headers['content-length']).toBe(String(end - start + 1));
        expect(a.body.equals(data.subarray(start, end + 1)), `${size} ${range}`).toBe(true);
        answers.push(a.common);
      }
      for (const c of answers) expect(c).toEqual(answers[0]);
    }
  });

  it('reads a range of SMALL_BODY bytes of a big file in one buffer and one byte more as a stream, both exact', async () => {
    const size = 300_000;
    const data = content(size);
    for (const length of [SMALL_BODY, SMALL_BODY + 1]) {
      const a = await get(size, { Range: `bytes=1000-${1000 + length - 1}` });
      expect(a.status).toBe(206);
      expect(a.headers['content-range']).toBe(`bytes 1000-${1000 + length - 1}/${size}`);
      expect(a.body.equals(data.subarray(1000, 1000 + length))).toBe(true);
    }
  });

  it('serves several ranges, 304, 412 and 416 the same way for every size', async () => {
    for (const size of SIZES) {
      const data = content(size);
      const multi = await get(size, { Range: 'bytes=5-9,20-29' });
      expect(multi.status).toBe(206);
      const boundary = /boundary=(\S+)$/.exec(multi.headers['content-type']!)![1]!;
      const parts = multi.body.toString('latin1').split(`--${boundary}`).slice(1, -1);
      expect(parts).toHaveLength(2);
      expect(parts[0]).toContain(`Content-Range: bytes 5-9/${size}`);
      expect(Buffer.from(parts[1]!.split('\r\n\r\n')[1]!.replace(/\r\n$/, ''), 'latin1').equals(data.subarray(20, 30))).toBe(true);

      const etag = (await get(size)).headers['etag']!;
      const notModified = await get(size, { 'If-None-Match': etag });
      expect(notModified.status).toBe(304);
      expect(notModified.body.length).toBe(0);
      expect((await get(size, { 'If-Unmodified-Since': new Date(MTIME.getTime() - 5000).toUTCString() })).status).toBe(412);
      const unsatisfiable = await get(size, { Range: `bytes=${size}-` });
      expect(unsatisfiable.status).toBe(416);
      expect(unsatisfiable.headers['content-range']).toBe(`bytes */${size}`);
      const stale = await get(size, { Range: 'bytes=0-0', 'If-Range': new Date(MTIME.getTime() - 60_000).toUTCString() });
      expect(stale.status).toBe(200);
      expect(stale.body.equals(data)).toBe(true);
    }
  });

  it('keeps the inline headers (type, sandbox) the same for a small and a big file', async () => {
    const html = (n: number) => `<html>${'x'.repeat(n)}</html>`;
    await writeFile(path.join(srv.root, 'sizes', 'small.html'), html(100));
    await writeFile(path.join(srv.root, 'sizes', 'big.html'), html(SMALL_BODY * 2));
    const small = await srv.fetch('/api/raw/sizes/small.html?inline=true', { token });
    const big = await srv.fetch('/api/raw/sizes/big.html?inline=true', { token });
    for (const res of [small, big]) {
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/script-src 'none'.*; sandbox$/);
      expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="/);
    }
    expect(await small.text()).toBe(html(100));
    expect(await big.text()).toBe(html(SMALL_BODY * 2));
  });
});
