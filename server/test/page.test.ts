import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer, type TestServer } from './harness.js';

const KEYS = [
  'AuthMethod', 'BaseURL', 'CSS', 'Color', 'DisableExternal', 'DisableUsedPercentage', 'EnableExec', 'EnableThumbs',
  'EnableVideoThumbs', 'EnableWebDAV', 'HideLoginButton', 'IssuesURL', 'LoginPage', 'LogoutPage', 'Name', 'NoAuth', 'ProjectURL', 'ReCaptcha', 'ResizePreview',
  'Signup', 'StaticURL', 'Theme', 'TrashDays', 'TusSettings', 'Version',
];

interface Page {
  res: Response;
  html: string;
  nonce: string;
  config: Record<string, unknown>;
  prependStaticUrl: (u: string) => string;
}

/** Fetches a page and runs its injected script the way a browser would, to read window.FileBrowser back. */
async function page(srv: TestServer, p = '/'): Promise<Page> {
  const res = await srv.fetch(p);
  const html = await res.text();
  expect(res.status).toBe(200);
  const m = /<script nonce="([^"]+)">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error(`no injected script in ${html}`);
  const window: Record<string, unknown> = {};
  vm.runInNewContext(m[2]!, { window });
  return {
    res,
    html,
    nonce: m[1]!,
    config: window.FileBrowser as Record<string, unknown>,
    prependStaticUrl: window.__prependStaticUrl as (u: string) => string,
  };
}

async function updateSettings(srv: TestServer, change: (s: Awaited<ReturnType<TestServer['deps']['settings']['settings']>>) => void) {
  const s = await srv.deps.settings.settings();
  change(s);
  await srv.deps.settings.saveSettings(s);
}

describe('GET / and client routes (docs/api.md §5.1)', () => {
  const srv = useServer({}, { version: '9.8.7' });

  it('answers 200 text/html with every window.FileBrowser key from the stored settings', async () => {
    const p = await page(srv);
    expect(p.res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Object.keys(p.config)).toEqual(KEYS);
    expect(p.config).toEqual({
      AuthMethod: 'json', BaseURL: '', CSS: false, Color: '', DisableExternal: false, DisableUsedPercentage: false,
      EnableExec: false, EnableThumbs: true,
      // ffmpeg is installed where the tests run (scripts/system-deps.mjs).
      EnableVideoThumbs: true, EnableWebDAV: true, HideLoginButton: true, IssuesURL: '', LoginPage: true, LogoutPage: '/login',
      Name: '', NoAuth: false, ProjectURL: '', ReCaptcha: false, ResizePreview: true, Signup: false, StaticURL: '/static', Theme: '',
      TrashDays: 30, TusSettings: { chunkSize: 10485760, retryCount: 5 }, Version: '9.8.7',
    });
    // Coffer's page names Coffer; Name stays "" so File Browser's client keeps its own default (issue 17).
    expect(p.html).toContain('<title>Coffer</title>');
    expect(p.html).toContain('<meta name="theme-color" content="#2979ff">');
    expect(p.html).toContain('href="/static/img/icons/favicon.ico"');
    expect(p.prependStaticUrl('/assets/x.js')).toBe('/static/assets/x.js');
  });

  it('serves the page on every client route, any depth', async () => {
    for (const p of ['/login', '/files/', '/files/a/b/c.txt', '/files/does/not/exist', '/settings', '/settings/global', '/settings/users/3', '/share/abcdef', '/404']) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type'), p).toBe('text/html; charset=utf-8');
      expect(await res.text(), p).toContain('window.FileBrowser = ');
    }
  });

  it('answers 404 for other methods on client routes', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
      const res = await srv.fetch('/files/x', { method });
      expect(res.status, method).toBe(404);
      await res.arrayBuffer();
    }
    const post = await srv.fetch('/', { method: 'POST', body: '{}' });
    expect(post.status).toBe(404);
    expect(await post.text()).toBe('404 Not Found\n');
  });

  it('answers a plain 404 (never the page) for unmatched /api, /static and /health paths', async () => {
    for (const p of ['/api', '/api/', '/api/nothing/here', '/static', '/static/', '/static/nothing.js', '/health/x']) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).toBe('404 Not Found\n');
      expect(res.headers.get('content-type'), p).toBe('text/plain; charset=utf-8');
    }
  });

  it('sends the S62 headers with a fresh nonce that the injected script carries', async () => {
    const a = await page(srv);
    const b = await page(srv, '/files/');
    const csp = a.res.headers.get('content-security-policy')!;
    for (const d of [
      "default-src 'self'", `script-src 'self' 'nonce-${a.nonce}'`, "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
      "media-src 'self' blob:", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'self'",
    ]) {
      expect(csp.split('; '), d).toContain(d);
    }
    expect(csp).toMatch(/connect-src 'self'/);
    expect(csp).not.toContain('unsafe-eval');
    expect(a.nonce.length).toBeGreaterThanOrEqual(16);
    expect(a.nonce).not.toBe(b.nonce);
    expect(b.res.headers.get('content-security-policy')).toContain(`'nonce-${b.nonce}'`);
    // Every inline script carries this response's nonce; no script runs without one.
    for (const tag of a.html.match(/<script\b[^>]*>/g) ?? []) {
      if (!/\bsrc=/.test(tag)) expect(tag).toContain(`nonce="${a.nonce}"`);
    }
    const h = a.res.headers;
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('x-xss-protection')).toBe('1; mode=block');
    expect(h.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(h.get('referrer-policy')).toBe('same-origin');
    expect(h.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
    expect(h.get('strict-transport-security')).toBeNull(); // plain HTTP
  });

  it('sends no referrer from share pages', async () => {
    const res = await srv.fetch('/share/abcdefgh');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    await res.text();
  });

  it('fills values from the current settings on every request', async () => {
    await updateSettings(srv, (s) => {
      s.signup = true;
      s.hideLoginButton = false;
      s.branding.theme = 'dark';
      s.tus = { chunkSize: 1234, retryCount: 1 };
    });
    const p = await page(srv);
    expect(p.config).toMatchObject({ Signup: true, HideLoginButton: false, Theme: 'dark', TusSettings: { chunkSize: 1234, retryCount: 1 } });
    await updateSettings(srv, (s) => {
      s.signup = false;
    });
    expect((await page(srv)).config.Signup).toBe(false);
  });

  it('injects a hostile branding name intact into window.FileBrowser and never as markup (S63)', async () => {
    const name = `</script><script>alert(1)</script>\u2028\u2029'"&<!-- ${'__COFFER_TITLE__'} /__COFFER_STATIC__ <!--coffer:head-->`;
    const color = `"><script>alert(2)</script>`;
    await updateSettings(srv, (s) => {
      s.branding.name = name;
      s.branding.color = color;
      s.branding.theme = `</script>'`;
    });
    try {
      const p = await page(srv);
      expect(p.config.Name).toBe(name);
      expect(p.config.Color).toBe(color);
      expect(p.config.Theme).toBe(`</script>'`);
      expect(p.html).not.toContain('<script>alert');
      // Exactly one inline script element, and the title holds the escaped text.
      expect(p.html.match(/<script\b/g)).toHaveLength(1);
      expect(p.html).toContain('<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(p.html).toContain('content="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
      // The placeholders inside the value were not expanded.
      expect(p.html.match(/<!--coffer:head-->/g) ?? []).toHaveLength(0);
      const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(p.html)![1]!;
      expect(script).toContain('\\u003c/script\\u003e');
      expect(script).toContain("\\'");
      // Raw line separators would end a JS line in older engines: only their escapes appear.
      expect(script).not.toMatch(/[\u2028\u2029]/);
      expect(script).toContain('\\u2028\\u2029');
    } finally {
      await updateSettings(srv, (s) => {
        s.branding.name = '';
        s.branding.color = '';
        s.branding.theme = '';
      });
    }
  });

  it('uses the branding name as the title', async () => {
    await updateSettings(srv, (s) => {
      s.branding.name = 'Tom & Jerry';
    });
    try {
      const p = await page(srv);
      expect(p.html).toContain('<title>Tom &amp; Jerry</title>');
      expect(p.config.Name).toBe('Tom & Jerry');
    } finally {
      await updateSettings(srv, (s) => {
        s.branding.name = '';
      });
    }
  });

  it('offers reCAPTCHA only with a key and a secret, with its host in the script and the policy', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, recaptcha: { host: 'https://captcha.example', key: 'site"key', secret: 'the-secret' } });
    try {
      const p = await page(srv);
      expect(p.config).toMatchObject({ ReCaptcha: true, ReCaptchaHost: 'https://captcha.example', ReCaptchaKey: 'site"key' });
      expect(p.html).not.toContain('the-secret');
      expect(p.html).toContain(`<script nonce="${p.nonce}" src="https://captcha.example/recaptcha/api.js?render=explicit"`);
      const csp = p.res.headers.get('content-security-policy')!;
      expect(csp).toMatch(/script-src [^;]*https:\/\/captcha\.example/);
      expect(csp).toMatch(/frame-src [^;]*https:\/\/captcha\.example/);

      await srv.deps.settings.saveAuther({ ...auther, recaptcha: { host: 'https://captcha.example', key: 'k', secret: '' } });
      const q = await page(srv);
      expect(q.config.ReCaptcha).toBe(false);
      expect(q.html).not.toContain('recaptcha/api.js');
      expect(q.res.headers.get('content-security-policy')).not.toContain('captcha.example');
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
    expect(Object.keys((await page(srv)).config)).toEqual(KEYS);
  });

  it('reports the auth method, login page and logout page', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, method: 'proxy', header: 'X-User', logoutPage: '/bye' });
    try {
      const p = await page(srv);
      expect(p.config).toMatchObject({ AuthMethod: 'proxy', LoginPage: false, NoAuth: false, LogoutPage: '/bye' });
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
  });
});

describe('custom.css from the branding folder', () => {
  const srv = useServer();
  let branding = '';
  beforeAll(async () => {
    branding = await mkdtemp(path.join(tmpdir(), 'coffer-branding-'));
  });
  afterAll(async () => {
    await rm(branding, { recursive: true, force: true });
  });

  it('sets CSS and links the stylesheet only when the file exists', async () => {
    await updateSettings(srv, (s) => {
      s.branding.files = branding;
    });
    let p = await page(srv);
    expect(p.config.CSS).toBe(false);
    expect(p.html).not.toContain('custom.css');
    const missing = await srv.fetch('/static/custom.css');
    expect(missing.status).toBe(404);
    await missing.text();

    await writeFile(path.join(branding, 'custom.css'), 'body { color: red }');
    p = await page(srv);
    expect(p.config.CSS).toBe(true);
    expect(p.html).toContain('<link rel="stylesheet" href="/static/custom.css">');
    const css = await srv.fetch('/static/custom.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await css.text()).toBe('body { color: red }');
  });
});

describe('server switches in the page', () => {
  const srv = useServer({ disableExec: false, disableThumbnails: true, disablePreviewResize: true });
  it('maps --disable-exec, --disable-thumbnails and --disable-preview-resize', async () => {
    const p = await page(srv);
    expect(p.config).toMatchObject({ EnableExec: true, EnableThumbs: false, ResizePreview: false });
  });
});

describe('project and issue tracker addresses in the page', () => {
  const srv = useServer({ projectURL: 'https://example.org/coffer?a=1&b=<x>', issuesURL: 'https://example.org/coffer/issues' });
  it('injects --project-url and --issues-url as ProjectURL and IssuesURL, escaped like every value', async () => {
    const p = await page(srv);
    expect(p.config).toMatchObject({ ProjectURL: 'https://example.org/coffer?a=1&b=<x>', IssuesURL: 'https://example.org/coffer/issues' });
    expect(p.html).not.toContain('b=<x>');
    expect(Object.keys(p.config)).toEqual(KEYS);
  });
});

describe('noauth', () => {
  const srv = useServer({ noauth: true });
  it('reports NoAuth and no login page', async () => {
    const p = await page(srv);
    expect(p.config).toMatchObject({ AuthMethod: 'noauth', NoAuth: true, LoginPage: false });
  });
});

describe('base URL in the page (docs/api.md §1.1)', () => {
  const srv = useServer({ baseURL: '/coffer/' });
  it('serves the page under the prefix with BaseURL and StaticURL carrying it', async () => {
    for (const p of ['/', '/files/a/b', '/login', '/share/xyz']) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(200);
      await res.text();
    }
    const p = await page(srv, '/files/x');
    expect(p.config).toMatchObject({ BaseURL: '/coffer', StaticURL: '/coffer/static' });
    expect(p.html).toContain('href="/coffer/static/img/icons/favicon.svg"');
    expect(p.prependStaticUrl('assets/a.js')).toBe('/coffer/static/assets/a.js');
    const share = await srv.fetch('/share/xyz');
    expect(share.headers.get('referrer-policy')).toBe('no-referrer');
    await share.text();
  });
  it('does not serve the page outside the prefix, nor for /api or /static under it', async () => {
    const origin = srv.url.replace(/\/coffer$/, '');
    for (const p of ['/', '/files/x', '/login']) {
      const res = await fetch(origin + p, { redirect: 'manual' });
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).toBe('404 Not Found\n');
    }
    expect(await (await fetch(origin + '/cofferx/files')).text()).toBe('404 Not Found\n');
    for (const p of ['/api/nope', '/static/nope.js', '/static']) {
      const res = await srv.fetch(p);
      expect(res.status, p).toBe(404);
      expect(await res.text()).toBe('404 Not Found\n');
    }
  });
});
