/** Video thumbnails and posters: GET /api/preview/{thumb|big}/{video} with ffmpeg (docs/api.md §9). */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';
import { putFile } from './raw-helpers.js';

const run = promisify(execFile);
const MTIME = new Date('2024-01-02T03:04:05Z');

/** A short 320×180 video from ffmpeg's test pattern, red-dominated so the frame can be recognised. */
async function makeVideo(file: string, opts: { seconds: number; format: string; codec: string }): Promise<void> {
  await run('ffmpeg', [
    '-nostdin', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `color=c=red:size=320x180:rate=10:duration=${opts.seconds}`,
    '-c:v', opts.codec, '-pix_fmt', 'yuv420p', '-f', opts.format, file,
  ]);
}

async function headPixel(data: Buffer): Promise<number[]> {
  const { data: px } = await sharp(data).extract({ left: 10, top: 10, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
  return [...px];
}

describe('GET /api/preview for videos (ffmpeg)', () => {
  let srv: TestServer;
  let cacheDir: string;
  let outside: string;
  let admin: string;
  beforeAll(async () => {
    cacheDir = await mkdtemp(path.join(tmpdir(), 'coffer-vcache-'));
    outside = await mkdtemp(path.join(tmpdir(), 'coffer-voutside-'));
    srv = await startServer({ cacheDir });
    admin = await srv.login();
    const work = await mkdtemp(path.join(tmpdir(), 'coffer-vmake-'));
    try {
      await makeVideo(path.join(work, 'clip.mp4'), { seconds: 2, format: 'mp4', codec: 'libx264' });
      await makeVideo(path.join(work, 'short.webm'), { seconds: 0.3, format: 'webm', codec: 'libvpx' });
      const clip = await readFile(path.join(work, 'clip.mp4'));
      await putFile(srv.root, 'v/clip.mp4', clip, MTIME);
      await putFile(srv.root, 'v/short.webm', await readFile(path.join(work, 'short.webm')), MTIME);
      // Names ffmpeg would take for an option or a protocol if it ever saw them.
      await putFile(srv.root, 'v/-i x.mp4', clip, MTIME);
      await putFile(srv.root, 'v/concat:a.mp4|b.mp4', clip, MTIME);
      await putFile(srv.root, 'v/http:evil.mp4', clip, MTIME);
      // Not a video at all, under a video name.
      await putFile(srv.root, 'v/broken.mp4', Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.alloc(4000, 0x41)]), MTIME);
      // An HLS playlist in disguise whose segment is a video outside the scope: plain ffmpeg
      // would show that video's frame.
      await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', path.join(work, 'clip.mp4'), '-c', 'copy', '-f', 'mpegts', path.join(outside, 'secret.ts')]);
      await putFile(srv.root, 'v/playlist.mp4', `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n${outside}/secret.ts\n#EXT-X-ENDLIST\n`, MTIME);
      // One 9000×9000 frame (81 megapixels, 2 MB as MJPEG): ffmpeg would decode it into ~400 MiB.
      await run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:size=9000x9000', '-frames:v', '1', '-c:v', 'mjpeg', '-q:v', '31', '-f', 'matroska', path.join(work, 'huge.mkv')]);
      await putFile(srv.root, 'v/huge.mkv', await readFile(path.join(work, 'huge.mkv')), MTIME);
      await writeFile(path.join(outside, 'secret.mp4'), clip);
      await symlink(path.join(outside, 'secret.mp4'), path.join(srv.root, 'v/link-out.mp4'));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await srv.close();
    await rm(cacheDir, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });
  const get = (p: string) => srv.fetch(p, { token: admin });

  it('found ffmpeg at start and tells the client that videos have thumbnails', async () => {
    expect(srv.deps.ffmpeg?.path).toMatch(/ffmpeg$/);
    const html = await (await srv.fetch('/')).text();
    expect(html).toContain('"EnableVideoThumbs":true');
  });

  it('makes a 256×256 JPEG thumbnail of a frame, then answers it from the cache', async () => {
    const first = await get('/api/preview/thumb/v/clip.mp4?inline=true');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/jpeg');
    expect(first.headers.get('x-preview-cache')).toBe('miss');
    const data = Buffer.from(await first.arrayBuffer());
    const meta = await sharp(data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 256, 256]);
    const [r, g, b] = await headPixel(data);
    expect(r).toBeGreaterThan(200);
    expect(g! + b!).toBeLessThan(80);

    const second = await get('/api/preview/thumb/v/clip.mp4?inline=true');
    expect(second.status).toBe(200);
    expect(second.headers.get('x-preview-cache')).toBe('hit');
    expect(Buffer.from(await second.arrayBuffer()).equals(data)).toBe(true);
  });

  it('makes the poster at the video size (fits 1080×1080, never enlarged)', async () => {
    const res = await get('/api/preview/big/v/clip.mp4');
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 180]);
  });

  it('takes the first frame of a video shorter than a second', async () => {
    const res = await get('/api/preview/thumb/v/short.webm');
    expect(res.status).toBe(200);
    expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width).toBe(256);
  });

  it('answers 415 for a broken video (the client shows the file icon)', async () => {
    const res = await get('/api/preview/thumb/v/broken.mp4');
    expect(res.status).toBe(415);
    expect(await res.text()).not.toContain(srv.root);
  });

  it('answers 415 for frames over 8192×8192 pixels, which ffmpeg is told not to decode', async () => {
    expect((await get('/api/preview/thumb/v/huge.mkv')).status).toBe(415);
  });

  it('reads hostile names as names: no option, no protocol', async () => {
    for (const name of ['-i x.mp4', 'concat:a.mp4|b.mp4', 'http:evil.mp4']) {
      const res = await get(`/api/preview/thumb/v/${encodeURIComponent(name)}`);
      expect(res.status, name).toBe(200);
      expect((await sharp(Buffer.from(await res.arrayBuffer())).metadata()).width, name).toBe(256);
    }
  });

  it('never follows a playlist to a file outside the scope', async () => {
    expect((await get('/api/preview/thumb/v/playlist.mp4')).status).toBe(415);
    expect((await get('/api/preview/thumb/v/link-out.mp4')).status).toBe(403);
  });

  it('answers 401 without a token and 403 without perm.download', async () => {
    expect((await srv.fetch('/api/preview/thumb/v/clip.mp4')).status).toBe(401);
    const u = await srv.createUser({ perm: { download: false } });
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/preview/thumb/v/clip.mp4', { token })).status).toBe(403);
  });
});

describe('GET /api/preview for videos without ffmpeg', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ ffmpegPath: '/nonexistent/ffmpeg' });
    await putFile(srv.root, 'v/clip.mp4', Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.alloc(100)]), MTIME);
  });
  afterAll(() => srv.close());

  it('answers 501 and tells the client that videos have no thumbnails', async () => {
    expect(srv.deps.ffmpeg).toBeNull();
    const token = await srv.login();
    expect((await srv.fetch('/api/preview/thumb/v/clip.mp4', { token })).status).toBe(501);
    const html = await (await srv.fetch('/')).text();
    expect(html).toContain('"EnableVideoThumbs":false');
  });
});
