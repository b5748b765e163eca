/** GET /api/subtitle/{path} (docs/api.md §10; S10, S12, S60, S64, S82). */
import { truncate } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer } from './harness.js';
import { putFile, rawGet } from './raw-helpers.js';

const srv = useServer();
let admin: string;
const MTIME = new Date('2024-05-06T07:08:09Z');
const SRT =
  '1\r\n00:00:01,000 --> 00:00:02,000\r\nHello<br/>world\r\n\r\n2\r\n00:00:03,500 --> 00:00:04,000\r\nBye\r\n';
const VTT =
  'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nHello\nworld\n\n2\n00:00:03.500 --> 00:00:04.000\nBye\n\n';

beforeAll(async () => {
  admin = await srv.login();
  await putFile(srv.root, 'v/movie.srt', SRT, MTIME);
  await putFile(srv.root, 'v/movie.vtt', 'WEBVTT\n\n00:00.000 --> 00:01.000\nas is\n', MTIME);
  await putFile(
    srv.root,
    'v/movie.ass',
    '[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\nDialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{\\b1}Hi\n',
    MTIME,
  );
  await putFile(srv.root, 'v/movie.SRT', SRT, MTIME);
  await putFile(srv.root, 'v/notes.txt', 'x', MTIME);
  await putFile(srv.root, 'v/private.srt', SRT, MTIME);
  const huge = await putFile(srv.root, 'v/huge.srt', '');
  await truncate(huge, 11 * 1024 * 1024);
});

const get = (p: string, headers: Record<string, string> = {}) => srv.fetch(p, { token: admin, headers });

describe('GET /api/subtitle', () => {
  it('answers 401 without a token and 403 without perm.download (S10)', async () => {
    expect((await srv.fetch('/api/subtitle/v/movie.srt?inline=true')).status).toBe(401);
    const u = await srv.createUser({ perm: { download: false } });
    const token = await srv.login(u.username, u.password);
    const res = await srv.fetch('/api/subtitle/v/movie.srt?inline=true', { token });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('403 Forbidden\n');
  });

  it('converts SRT to WebVTT, inline as text/vtt with the file headers', async () => {
    const res = await get('/api/subtitle/v/movie.srt?inline=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="movie\.srt"/);
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('last-modified')).toBe(MTIME.toUTCString());
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(
      "script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'",
    );
    expect(await res.text()).toBe(VTT);
  });

  it('is an octet-stream attachment without inline=true (S61)', async () => {
    const res = await get('/api/subtitle/v/movie.srt');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('converts ASS, serves VTT and upper-case suffixes unchanged', async () => {
    expect(await (await get('/api/subtitle/v/movie.ass?inline=true')).text()).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n\n',
    );
    expect(await (await get('/api/subtitle/v/movie.vtt?inline=true')).text()).toBe(
      'WEBVTT\n\n00:00.000 --> 00:01.000\nas is\n',
    );
    expect(await (await get('/api/subtitle/v/movie.SRT?inline=true')).text()).toBe(SRT);
  });

  it('answers 400 for folders and names that are not subtitles, 404 for missing ones', async () => {
    expect((await get('/api/subtitle/v')).status).toBe(400);
    expect((await get('/api/subtitle/v/notes.txt')).status).toBe(400);
    expect((await get('/api/subtitle/v/none.srt')).status).toBe(404);
  });

  it('answers 403 for denied paths and escapes, 400 for control characters', async () => {
    const u = await srv.createUser({
      rules: [{ regex: false, allow: false, path: '/v/private.srt', regexp: { raw: '' } }],
    });
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/subtitle/v/private.srt', { token })).status).toBe(403);
    expect((await rawGet(srv, '/api/subtitle/..%2f..%2fx.srt', { 'X-Auth': admin })).status).toBe(403);
    expect((await rawGet(srv, '/api/subtitle/v/../../x.srt', { 'X-Auth': admin })).status).toBe(403);
    expect((await rawGet(srv, '/api/subtitle/v/%01.srt', { 'X-Auth': admin })).status).toBe(400);
  });

  it('refuses to convert more than 10 MiB (S82)', async () => {
    expect((await get('/api/subtitle/v/huge.srt?inline=true')).status).toBe(413);
  });

  it('honours conditional and range requests on the converted text', async () => {
    expect(
      (await get('/api/subtitle/v/movie.srt?inline=true', { 'If-Modified-Since': MTIME.toUTCString() }))
        .status,
    ).toBe(304);
    const part = await get('/api/subtitle/v/movie.srt?inline=true', { Range: 'bytes=0-5' });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('WEBVTT');
  });
});
