import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness.js';

/** A client build shaped like the page contract's (docs/api.md §5.2) (Vite with base '/__COFFER_STATIC__/'). */
async function fakeDist(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'assets'), { recursive: true });
  await mkdir(path.join(dir, 'img', 'icons'), { recursive: true });
  await writeFile(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><title>__COFFER_TITLE__</title><meta name="theme-color" content="__COFFER_THEME_COLOR__">` +
      `<link rel="icon" href="/__COFFER_STATIC__/img/icons/favicon.svg"><!--coffer:head-->` +
      `<script type="module" crossorigin src="/__COFFER_STATIC__/assets/index-AbC123.js"></script>` +
      `<link rel="stylesheet" crossorigin href="/__COFFER_STATIC__/assets/index-XyZ789.css"></head><body><div id="app"></div></body></html>`,
  );
  await writeFile(path.join(dir, 'assets', 'index-AbC123.js'), 'console.log("app")');
  await writeFile(path.join(dir, 'assets', 'index-XyZ789.css'), 'body{}');
  await writeFile(path.join(dir, 'img', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(dir, 'img', 'icons', 'favicon.ico'), Buffer.from([0, 0, 1, 0]));
  await writeFile(path.join(dir, 'img', 'icons', 'apple-touch-icon.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  await writeFile(path.join(dir, 'robots.txt'), 'User-agent: *');
}

/** Sends a request line exactly as given (fetch would normalise `..`). */
function rawGet(url: string, target: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => {
      sock.write(`GET ${target} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    sock.on('data', (c: Buffer) => (data += c.toString('latin1')));
    sock.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    sock.on('error', reject);
  });
}

for (const base of ['', '/coffer']) {
  describe(`static assets and the built page${base ? ` under ${base}` : ''}`, () => {
    let srv: TestServer;
    let work: string;
    let dist: string;
    let branding: string;
    beforeAll(async () => {
      work = await mkdtemp(path.join(tmpdir(), 'coffer-static-'));
      dist = path.join(work, 'dist');
      branding = path.join(work, 'branding');
      await fakeDist(dist);
      await writeFile(path.join(work, 'secret.txt'), 'outside');
      await symlink(path.join(work, 'secret.txt'), path.join(dist, 'img', 'link.txt'));
      await mkdir(path.join(branding, 'img', 'icons'), { recursive: true });
      await writeFile(path.join(branding, 'img', 'logo.svg'), '<svg id="branded"/>');
      srv = await startServer({ baseURL: base }, { webDist: dist });
    });
    afterAll(async () => {
      await srv.close();
      await rm(work, { recursive: true, force: true });
    });

    it('fills the built index.html: static URLs, title, colour and the config script', async () => {
      const res = await srv.fetch('/files/');
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(html).toContain(`<script type="module" crossorigin src="${base}/static/assets/index-AbC123.js"></script>`);
      expect(html).toContain(`href="${base}/static/assets/index-XyZ789.css"`);
      expect(html).toContain(`href="${base}/static/img/icons/favicon.svg"`);
      expect(html).toContain('<title>Coffer</title>');
      expect(html).toContain('content="#2979ff"');
      expect(html).toMatch(/<script nonce="[^"]+">window\.FileBrowser = \{/);
      expect(html).not.toContain('__COFFER_');
      expect(html).not.toContain('<!--coffer:head-->');
    });

    it('serves hashed bundles with a long immutable cache and their exact types', async () => {
      const js = await srv.fetch('/static/assets/index-AbC123.js');
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(js.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await js.text()).toBe('console.log("app")');
      const css = await srv.fetch('/static/assets/index-XyZ789.css');
      expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(await css.text()).toBe('body{}');
    });

    it('serves other files for a day with their exact types', async () => {
      const cases: [string, string][] = [
        ['/static/img/icons/favicon.ico', 'image/x-icon'],
        ['/static/img/icons/apple-touch-icon.png', 'image/png'],
        ['/static/robots.txt', 'text/plain; charset=utf-8'],
      ];
      for (const [p, type] of cases) {
        const res = await srv.fetch(p);
        expect(res.status, p).toBe(200);
        expect(res.headers.get('content-type'), p).toBe(type);
        expect(res.headers.get('cache-control'), p).toBe('public, max-age=86400');
        expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
        expect((await res.arrayBuffer()).byteLength, p).toBeGreaterThan(0);
      }
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const first = await srv.fetch('/static/img/logo.svg');
      const etag = first.headers.get('etag')!;
      await first.text();
      expect(etag).toBeTruthy();
      const again = await srv.fetch('/static/img/logo.svg', { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
    });

    it('answers a plain 404 for missing files, folders, trailing slashes and index.html', async () => {
      for (const p of ['/static/missing.js', '/static/assets/', '/static/img', '/static/img/', '/static/index.html', '/static/assets/index-AbC123.js/']) {
        const res = await srv.fetch(p);
        expect(res.status, p).toBe(404);
        expect(await res.text(), p).toBe('404 Not Found\n');
      }
    });

    it('answers 404 to every method but GET', async () => {
      for (const method of ['HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']) {
        const res = await srv.fetch('/static/assets/index-AbC123.js', { method });
        expect(res.status, method).toBe(404);
        await res.arrayBuffer();
      }
    });

    it('never leaves the build folder, by dot segments or by a link', async () => {
      const prefix = `${base}/static`;
      for (const target of [`${prefix}/../../secret.txt`, `${prefix}/..%2f..%2fsecret.txt`, `${prefix}/img/%2e%2e/%2e%2e/%2e%2e/secret.txt`]) {
        const status = await rawGet(srv.url, target);
        expect([403, 404], target).toContain(status);
      }
      const link = await srv.fetch('/static/img/link.txt');
      expect(link.status).toBe(404);
      expect(await link.text()).toBe('404 Not Found\n');
      const nul = await srv.fetch('/static/%00.js');
      expect(nul.status).toBe(400);
      await nul.text();
    });

    it('prefers the branding folder for img/ and falls back to the build', async () => {
      const s = await srv.deps.settings.settings();
      s.branding.files = branding;
      await srv.deps.settings.saveSettings(s);
      try {
        const logo = await srv.fetch('/static/img/logo.svg');
        expect(await logo.text()).toBe('<svg id="branded"/>');
        expect(logo.headers.get('content-type')).toBe('image/svg+xml');
        const ico = await srv.fetch('/static/img/icons/favicon.ico'); // from the build
        expect(ico.status).toBe(200);
        expect(Buffer.from(await ico.arrayBuffer())).toEqual(Buffer.from([0, 0, 1, 0]));
        const css = await srv.fetch('/static/custom.css'); // absent in the branding folder
        expect(css.status).toBe(404);
        expect(await css.text()).toBe('404 Not Found\n');
        expect([403, 404]).toContain(await rawGet(srv.url, `${base}/static/img/..%2f..%2f..%2fsecret.txt`));
      } finally {
        s.branding.files = '';
        await srv.deps.settings.saveSettings(s);
      }
      expect(await (await srv.fetch('/static/img/logo.svg')).text()).toBe('<svg xmlns="http://www.w3.org/2000/svg"/>');
    });
  });
}
