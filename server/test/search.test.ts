/** GET /api/search (docs/api.md §12; S1, S6, S12, S84). */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchActivity } from '../src/features/search/routes.js';
import { useServer } from './harness.js';
import { putFile, rawGet } from './raw-helpers.js';

const srv = useServer();
let admin: string;

type Hit = { dir: boolean; path: string };
const parse = (body: string): Hit[] =>
  body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Hit);

async function search(p: string, query: string, token = admin): Promise<Hit[]> {
  const res = await srv.fetch(`/api/search${p}?query=${encodeURIComponent(query)}`, { token });
  expect(res.status).toBe(200);
  return parse(await res.text());
}

beforeAll(async () => {
  admin = await srv.login();
  const r = srv.root;
  for (const f of [
    's/report-notes.txt',
    's/docs/report-old.txt',
    's/docs/Summary.PDF',
    's/docs/a.pdf',
    's/pics/IMAGE.JPG',
    's/pics/song.mp3',
    's/pics/film.mkv',
    's/my report.txt',
    's/private/report-secret.txt',
    's/.hidden-report.txt',
    's/.git/report-in-dot.txt',
    's/keys/report.key',
    's/deny-folder/report-child.txt',
  ]) {
    await putFile(r, f, 'x');
  }
  await mkdir(path.join(r, 's/reports-folder'));
  const outside = path.join(path.dirname(r), 'outside-search');
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, 'report-leak.txt'), 'leak');
  await symlink(outside, path.join(r, 's/report-out-link'));
  await symlink('docs', path.join(r, 's/report-in-link'));
});

describe('GET /api/search', () => {
  it('answers 401 without a token', async () => {
    expect((await srv.fetch('/api/search/s/?query=report')).status).toBe(401);
  });

  it('streams newline-delimited JSON of base-name matches, relative, in sorted walk order', async () => {
    const res = await srv.fetch('/api/search/s/?query=report', { token: admin });
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const hits = parse(await res.text());
    expect(hits).toEqual([
      { dir: false, path: '.git/report-in-dot.txt' },
      { dir: false, path: '.hidden-report.txt' },
      { dir: false, path: 'deny-folder/report-child.txt' },
      { dir: false, path: 'docs/report-old.txt' },
      { dir: false, path: 'keys/report.key' },
      { dir: false, path: 'my report.txt' },
      { dir: false, path: 'private/report-secret.txt' },
      { dir: true, path: 'report-in-link' },
      { dir: false, path: 'report-notes.txt' },
      { dir: true, path: 'reports-folder' },
    ]);
  });

  it('never reports or descends through an escaping link (S6), and does not descend links inside', async () => {
    const hits = await search('/s/', 'leak');
    expect(hits).toEqual([]);
    const all = (await search('/s/', 'report')).map((h) => h.path);
    expect(all).not.toContain('report-out-link');
    expect(all.some((p) => p.startsWith('report-in-link/'))).toBe(false);
  });

  it('matches case-insensitively by default, and exactly with case:sensitive', async () => {
    expect((await search('/s/', 'summary')).map((h) => h.path)).toEqual(['docs/Summary.PDF']);
    expect(await search('/s/', 'summary case:sensitive')).toEqual([]);
    expect((await search('/s/', 'Summary case:sensitive')).map((h) => h.path)).toEqual(['docs/Summary.PDF']);
  });

  it('filters by type: media types by extension MIME, other words by exact extension', async () => {
    expect((await search('/s/', 'type:image')).map((h) => h.path)).toEqual(['pics/IMAGE.JPG']);
    expect((await search('/s/', 'type:music')).map((h) => h.path)).toEqual(['pics/song.mp3']);
    expect((await search('/s/', 'type:video')).map((h) => h.path)).toEqual(['pics/film.mkv']);
    expect((await search('/s/', 'type:pdf')).map((h) => h.path)).toEqual(['docs/a.pdf']);
    expect((await search('/s/', 'type:pdf type:image')).map((h) => h.path)).toEqual([
      'docs/a.pdf',
      'pics/IMAGE.JPG',
    ]);
  });

  it('keeps a quoted term whole and splits others on spaces', async () => {
    expect((await search('/s/', '"my report"')).map((h) => h.path)).toEqual(['my report.txt']);
    expect((await search('/s/', 'song film')).map((h) => h.path)).toEqual(['pics/film.mkv', 'pics/song.mp3']);
  });

  it('leaves out rule-denied entries and hidden dotfiles (S12); a regex rule on a folder leaves its children', async () => {
    const u = await srv.createUser({
      hideDotfiles: true,
      rules: [
        { regex: false, allow: false, path: '/s/private', regexp: { raw: '' } },
        { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } },
        { regex: true, allow: false, path: '', regexp: { raw: '/deny-folder$' } },
      ],
    });
    const token = await srv.login(u.username, u.password);
    expect((await search('/s/', 'report', token)).map((h) => h.path)).toEqual([
      '.git/report-in-dot.txt',
      'deny-folder/report-child.txt',
      'docs/report-old.txt',
      'my report.txt',
      'report-in-link',
      'report-notes.txt',
      'reports-folder',
    ]);
    expect(await search('/s/', 'deny', token)).toEqual([]);
  });

  it('stays inside the scope and refuses paths that leave it', async () => {
    const u = await srv.createUser({ scope: '/s/docs' });
    const token = await srv.login(u.username, u.password);
    expect((await search('/', 'report', token)).map((h) => h.path)).toEqual(['report-old.txt']);
    for (const p of [
      '/api/search/..%2f?query=report',
      '/api/search/../?query=report',
      '/api/search/%2e%2e/?query=x',
    ]) {
      expect((await rawGet(srv, p, { 'X-Auth': token })).status, p).toBe(403);
    }
    expect((await rawGet(srv, '/api/search/a%00/?query=x', { 'X-Auth': token })).status).toBe(400);
  });

  it('answers an empty 200 for a missing folder and an empty query lists everything', async () => {
    expect(await search('/nope/', 'x')).toEqual([]);
    expect((await search('/s/pics/', '')).map((h) => h.path)).toEqual(['IMAGE.JPG', 'film.mkv', 'song.mp3']);
  });
});

describe('search streaming (S84)', () => {
  beforeAll(async () => {
    // 40 folders × 500 files: enough for a walk that takes a while.
    for (let d = 0; d < 40; d++) {
      const dir = path.join(srv.root, 'big', `d${String(d).padStart(2, '0')}`);
      await mkdir(dir, { recursive: true });
      await Promise.all(
        Array.from({ length: 500 }, (_, i) => writeFile(path.join(dir, `file-${i}.txt`), '')),
      );
    }
  }, 60_000);

  it('sends the first result before the walk ends and stops walking when the client goes away', async () => {
    const ctrl = new AbortController();
    const res = await srv.fetch('/api/search/big/?query=file', { token: admin, signal: ctrl.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^\{"dir":false,"path":"d00\/file-0\.txt"\}\n/);
    ctrl.abort();
    for (let i = 0; i < 100 && searchActivity.active > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(searchActivity.active).toBe(0);
  });

  it('keeps other requests answered while it walks', async () => {
    const pending = srv.fetch('/api/search/big/?query=file', { token: admin }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    expect((await srv.fetch('/health')).status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(parse(await pending)).toHaveLength(20_000);
  });
});
