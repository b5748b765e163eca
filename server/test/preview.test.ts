/** GET /api/preview/{size}/{path} (docs/api.md §9; S10, S60, S64, S82). */
import { mkdtemp, readdir, rm, truncate, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewStats } from '../src/features/preview/service.js';
import { startServer, useServer, type TestServer } from './harness.js';
import { putFile, rawGet } from './raw-helpers.js';

const MTIME = new Date('2024-01-02T03:04:05Z');

async function makeImages(root: string): Promise<void> {
  const wide = await sharp({
    create: { width: 3000, height: 1500, channels: 3, background: { r: 200, g: 30, b: 30 } },
  })
    .jpeg()
    .toBuffer();
  await putFile(root, 'img/wide.jpg', wide, MTIME);
  const png = await sharp({
    create: { width: 400, height: 300, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } },
  })
    .png()
    .toBuffer();
  await putFile(root, 'img/alpha.png', png, MTIME);
  // 200×100 stored with EXIF orientation 6 (rotate 90°): shown as 100×200.
  const rotated = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#0a0' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
  await putFile(root, 'img/rotated.jpg', rotated, MTIME);
  const webp = await sharp({ create: { width: 1200, height: 1200, channels: 3, background: '#888' } })
    .webp()
    .toBuffer();
  await putFile(root, 'img/square.webp', webp, MTIME);
  const tiff = await sharp({ create: { width: 500, height: 500, channels: 3, background: '#123' } })
    .tiff()
    .toBuffer();
  await putFile(root, 'img/scan.tiff', tiff, MTIME);
  await putFile(
    root,
    'img/anim.gif',
    Buffer.from('474946383961010001000000002c00000000010001000002024401003b', 'hex'),
    MTIME,
  );
  await putFile(
    root,
    'img/vector.svg',
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
    MTIME,
  );
  await putFile(
    root,
    'img/corrupt.jpg',
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 0x41)]),
    MTIME,
  );
  // A PNG whose header claims 20000×20000 pixels (400 MP): refused before decoding.
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20000, 0);
  ihdr.writeUInt32BE(20000, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  await putFile(
    root,
    'img/huge.png',
    Buffer.concat([
      Buffer.from('89504e470d0a1a0a', 'hex'),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(Buffer.alloc(100))),
      chunk('IEND', Buffer.alloc(0)),
    ]),
    MTIME,
  );
  const big = await putFile(root, 'img/enormous.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
  await truncate(big, 60 * 1024 * 1024);
  await putFile(root, 'img/notes.txt', 'not an image', MTIME);
  await putFile(root, 'img/secret.jpg', wide, MTIME);
}

describe('GET /api/preview', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
    await makeImages(srv.root);
  });
  const get = (p: string, headers: Record<string, string> = {}) => srv.fetch(p, { token: admin, headers });

  it('answers 401 without a token and 403 without perm.download (S10)', async () => {
    expect((await srv.fetch('/api/preview/thumb/img/wide.jpg')).status).toBe(401);
    const u = await srv.createUser({ perm: { download: false } });
    const token = await srv.login(u.username, u.password);
    const res = await srv.fetch('/api/preview/thumb/img/wide.jpg', { token });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('answers 400 for a size other than thumb or big', async () => {
    for (const s of ['THUMB', 'small', 'big2'])
      expect((await get(`/api/preview/${s}/img/wide.jpg`)).status).toBe(400);
  });

  it('answers 403 for denied and escaping paths, 404 for missing ones, 400 for control characters', async () => {
    const u = await srv.createUser({
      rules: [{ regex: true, allow: false, path: '', regexp: { raw: 'secret' } }],
    });
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/preview/thumb/img/secret.jpg', { token })).status).toBe(403);
    expect((await rawGet(srv, '/api/preview/thumb/..%2f..%2fetc%2fpasswd', { 'X-Auth': admin })).status).toBe(
      403,
    );
    expect((await rawGet(srv, '/api/preview/thumb/img/../../x.jpg', { 'X-Auth': admin })).status).toBe(403);
    expect((await rawGet(srv, '/api/preview/thumb/img/%00.jpg', { 'X-Auth': admin })).status).toBe(400);
    expect((await get('/api/preview/thumb/img/missing.jpg')).status).toBe(404);
  });

  it('makes a 256×256 JPEG thumbnail, cover-cropped', async () => {
    const res = await get('/api/preview/thumb/img/wide.jpg?inline=true&key=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('last-modified')).toBe(MTIME.toUTCString());
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="wide\.jpg"/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 256, 256]);
  });

  it('fits big previews inside 1080×1080 without enlarging, in the source format (PNG keeps alpha)', async () => {
    const wide = await sharp(
      Buffer.from(await (await get('/api/preview/big/img/wide.jpg?inline=true')).arrayBuffer()),
    ).metadata();
    expect([wide.format, wide.width, wide.height]).toEqual(['jpeg', 1080, 540]);
    const png = await get('/api/preview/big/img/alpha.png?inline=true');
    expect(png.headers.get('content-type')).toBe('image/png');
    const pm = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect([pm.format, pm.width, pm.height, pm.hasAlpha]).toEqual(['png', 400, 300, true]);
    const webp = await sharp(
      Buffer.from(await (await get('/api/preview/big/img/square.webp?inline=true')).arrayBuffer()),
    ).metadata();
    expect([webp.format, webp.width]).toEqual(['webp', 1080]);
    const tiff = await get('/api/preview/big/img/scan.tiff?inline=true');
    expect(tiff.headers.get('content-type')).toBe('image/jpeg');
  });

  it('applies the EXIF orientation before resizing', async () => {
    const meta = await sharp(
      Buffer.from(await (await get('/api/preview/big/img/rotated.jpg')).arrayBuffer()),
    ).metadata();
    expect([meta.width, meta.height]).toEqual([100, 200]);
  });

  it('serves GIF and SVG as the original file; SVG inline only sandboxed (S60)', async () => {
    const gif = await get('/api/preview/thumb/img/anim.gif?inline=true');
    expect(gif.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await gif.arrayBuffer()).toString('hex')).toBe(
      '474946383961010001000000002c00000000010001000002024401003b',
    );
    const svg = await get('/api/preview/big/img/vector.svg?inline=true');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('content-security-policy')).toMatch(/sandbox/);
    const att = await get('/api/preview/big/img/vector.svg');
    expect(att.headers.get('content-type')).toBe('application/octet-stream');
    expect(att.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('answers 501 for non-images and folders', async () => {
    expect((await get('/api/preview/thumb/img/notes.txt')).status).toBe(501);
    expect((await get('/api/preview/thumb/img')).status).toBe(501);
  });

  it('refuses sources above 100 megapixels or 50 MiB with 413 and corrupt images with 415, and stays up (S82)', async () => {
    expect((await get('/api/preview/thumb/img/huge.png')).status).toBe(413);
    expect((await get('/api/preview/big/img/enormous.jpg')).status).toBe(413);
    expect((await get('/api/preview/thumb/img/corrupt.jpg')).status).toBe(415);
    expect((await srv.fetch('/health')).status).toBe(200);
  });

  it('honours If-Modified-Since and ranges on resized answers', async () => {
    const res = await get('/api/preview/thumb/img/wide.jpg', { 'If-Modified-Since': MTIME.toUTCString() });
    expect(res.status).toBe(304);
    const part = await get('/api/preview/thumb/img/wide.jpg', { Range: 'bytes=0-1' });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('hex')).toBe('ffd8');
  });

  it('runs at most 4 resizes at once, the others wait', async () => {
    previewStats.peak = 0;
    const names = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const buf = await sharp({
          create: { width: 2500 + i, height: 2000, channels: 3, background: '#345' },
        })
          .jpeg()
          .toBuffer();
        await putFile(srv.root, `many/p${i}.jpg`, buf);
        return `many/p${i}.jpg`;
      }),
    );
    const statuses = await Promise.all(names.map(async (n) => (await get(`/api/preview/big/${n}`)).status));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(previewStats.peak).toBeGreaterThan(1);
    expect(previewStats.peak).toBeLessThanOrEqual(4);
  });
});

describe('preview options and cache', () => {
  let srv: TestServer;
  let cacheDir: string;
  let admin: string;
  beforeAll(async () => {
    cacheDir = await mkdtemp(path.join(tmpdir(), 'coffer-cache-'));
    srv = await startServer({ cacheDir, disableThumbnails: true });
    admin = await srv.login();
    await makeImages(srv.root);
  });
  afterAll(async () => {
    await srv.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('serves the original for thumb when thumbnails are disabled', async () => {
    const res = await srv.fetch('/api/preview/thumb/img/wide.jpg?inline=true', { token: admin });
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([3000, 1500]);
  });

  it('caches resized images on disk, keyed by path, size and mtime', async () => {
    const first = await srv.fetch('/api/preview/big/img/wide.jpg', { token: admin });
    expect(first.headers.get('x-preview-cache')).toBe('miss');
    const a = Buffer.from(await first.arrayBuffer());
    const second = await srv.fetch('/api/preview/big/img/wide.jpg', { token: admin });
    expect(second.headers.get('x-preview-cache')).toBe('hit');
    expect(Buffer.from(await second.arrayBuffer()).equals(a)).toBe(true);
    const level1 = await readdir(cacheDir);
    expect(level1.length).toBeGreaterThan(0);
    expect(level1.every((d) => /^[0-9a-f]$/.test(d))).toBe(true);
    const later = new Date(MTIME.getTime() + 60_000);
    await utimes(path.join(srv.root, 'img/wide.jpg'), later, later);
    const third = await srv.fetch('/api/preview/big/img/wide.jpg', { token: admin });
    expect(third.headers.get('x-preview-cache')).toBe('miss');
    await third.arrayBuffer();
  });

  it('serves the original for big when preview resizing is disabled', async () => {
    const other = await startServer({ disablePreviewResize: true });
    try {
      const token = await other.login();
      await makeImages(other.root);
      const res = await other.fetch('/api/preview/big/img/wide.jpg', { token });
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(3000);
      const thumb = await other.fetch('/api/preview/thumb/img/wide.jpg', { token });
      expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(256);
    } finally {
      await other.close();
    }
  });
});
