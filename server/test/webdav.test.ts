/**
 * WebDAV at /dav/ (issue 19) over real HTTP: Basic auth through the login throttle, the methods of
 * RFC 4918 class 1, and the web API's hostile-input tests for this second door — every path, the
 * Destination header too, stays in the user's scope under the same rules, permissions, reserved
 * names and symlink confinement.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileEvent, FileEventContext, Phase } from '../src/events/index.js';
import { defaultAuther } from '../src/features/settings/repository.js';
import { ADMIN, useServer, type TestServer } from './harness.js';
import { basic, davRaw, hrefs } from './webdav-helpers.js';

const admin = { username: ADMIN.username, password: ADMIN.password };

function dav(srv: TestServer, method: string, p: string, opts: Parameters<typeof davRaw>[3] = {}) {
  return davRaw(srv, method, p, { auth: admin, ...opts });
}

describe('WebDAV sign-in', () => {
  const srv = useServer();

  it('refuses anonymous requests with a Basic challenge, OPTIONS too', async () => {
    for (const method of ['OPTIONS', 'PROPFIND', 'GET', 'PUT']) {
      const res = await davRaw(srv, method, '/dav/', { auth: null });
      expect(res.status, method).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Coffer", charset="UTF-8"');
    }
  });

  it('ignores the session token and the cookie', async () => {
    const token = await srv.login();
    const res = await davRaw(srv, 'PROPFIND', '/dav/', { auth: null, headers: { 'x-auth': token, cookie: `auth=${token}`, depth: '0' } });
    expect(res.status).toBe(401);
  });

  it('answers 401 to a wrong password and accepts the right one', async () => {
    expect((await dav(srv, 'OPTIONS', '/dav/', { auth: { ...admin, password: 'wrong' } })).status).toBe(401);
    const ok = await dav(srv, 'OPTIONS', '/dav/');
    expect(ok.status).toBe(200);
    expect(ok.headers.dav).toContain('1');
    expect(ok.headers['ms-author-via']).toBe('DAV');
  });

  it('accepts an app password; a read-only one reads but never writes', async () => {
    const user = await srv.createUser({ scope: '/' });
    const made = await srv.deps.appPasswords.create(user.id, { name: 'phone', readOnly: true, expiresAt: 0 });
    const who = { username: user.username, password: made!.secret };
    await writeFile(path.join(srv.root, 'ro.txt'), 'read me');
    expect((await davRaw(srv, 'GET', '/dav/ro.txt', { auth: who })).body).toBe('read me');
    expect((await davRaw(srv, 'PUT', '/dav/ro.txt', { auth: who, body: 'changed' })).status).toBe(403);
    expect((await davRaw(srv, 'DELETE', '/dav/ro.txt', { auth: who })).status).toBe(403);
    expect(await readFile(path.join(srv.root, 'ro.txt'), 'utf8')).toBe('read me');
    const wrong = { username: user.username, password: 'cfap_' + 'A'.repeat(43) };
    expect((await davRaw(srv, 'GET', '/dav/ro.txt', { auth: wrong })).status).toBe(401);
  });

  it('stops trusting a password once it is changed', async () => {
    const user = await srv.createUser();
    const who = { username: user.username, password: user.password };
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
    await srv.deps.users.update({ ...(await srv.deps.users.byId(user.id))!, passwordHash: 'changed' });
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
  });
});

describe('WebDAV trusts a checked password only while the auth configuration and the user stay the same', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  const json = () => srv.deps.settings.saveAuther(defaultAuther('json'));
  const proxy = () => srv.deps.settings.saveAuther({ ...defaultAuther('proxy'), header: 'X-Remote-User' });

  it('never trusts a password that the proxy method did not check', async () => {
    const user = await srv.createUser();
    const who = { username: user.username, password: 'not-the-password' };
    await proxy();
    try {
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who, headers: { 'x-remote-user': user.username } })).status).toBe(200);
    } finally {
      await json();
    }
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
  });

  it('stops trusting a password once the auth method changes', async () => {
    const user = await srv.createUser();
    const who = { username: user.username, password: user.password };
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
    await proxy();
    try {
      // No proxy header: the proxy method lets no one in, whatever password was checked before.
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
    } finally {
      await json();
    }
  });

  it('stops trusting a password once the user is renamed or deleted', async () => {
    const user = await srv.createUser();
    const who = { username: user.username, password: user.password };
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
    await srv.deps.users.update({ ...(await srv.deps.users.byId(user.id))!, username: `${user.username}-renamed` });
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
    const other = await srv.createUser();
    const them = { username: other.username, password: other.password };
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: them })).status).toBe(200);
    const token = await srv.login();
    expect((await srv.fetch(`/api/users/${other.id}`, { method: 'DELETE', token, json: { current_password: ADMIN.password } })).status).toBe(200);
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: them })).status).toBe(401);
  });
});

describe('WebDAV under the hook auth method', () => {
  const srv = useServer();

  it('asks the hook at every request: an account it blocks after a good answer is refused at once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'coffer-dav-hook-'));
    // Authenticates until the file "blocked" appears beside it (an account closed in the directory).
    await writeFile(path.join(dir, 'hook.sh'), `#!/bin/sh\nif [ -e "$1/blocked" ]; then echo "hook.action=block"; else echo "hook.action=auth"; fi\n`);
    await chmod(path.join(dir, 'hook.sh'), 0o755);
    await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: `${dir}/hook.sh ${dir}` });
    try {
      const who = { username: 'hooked', password: 'hook-password-1' };
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
      await writeFile(path.join(dir, 'blocked'), '');
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
      await rm(path.join(dir, 'blocked'));
      expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
    } finally {
      await srv.deps.settings.saveAuther(defaultAuther('json'));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('WebDAV and a second factor turned on', () => {
  const srv = useServer();

  it('stops trusting a password once the user turns a second factor on', async () => {
    const user = await srv.createUser();
    const who = { username: user.username, password: user.password };
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(200);
    // Confirmed enrolment, as POST /api/second-factor/totp/confirm leaves it.
    await srv.deps.db.kysely.insertInto('totp').values({ user_id: user.id, secret: 'JBSWY3DPEHPK3PXP', confirmed: 1, created_at: Date.now(), last_step: 0 }).execute();
    expect((await davRaw(srv, 'OPTIONS', '/dav/', { auth: who })).status).toBe(401);
  });
});

describe('WebDAV and /api/login share one throttle', () => {
  const srv = useServer();

  it('answers 429 with Retry-After after the wrong passwords of /api/login, right password or not', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await srv.fetch('/api/login', { method: 'POST', json: { username: 'admin', password: `wrong${i}` } });
      expect(res.status).toBe(403);
    }
    const res = await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' } });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('WebDAV methods', () => {
  const srv = useServer();

  it('PUT creates (201) then replaces (204); GET and HEAD answer the bytes with ranges and validators', async () => {
    expect((await dav(srv, 'PUT', '/dav/hello.txt', { body: 'hello world' })).status).toBe(201);
    expect((await dav(srv, 'PUT', '/dav/hello.txt', { body: 'hello again' })).status).toBe(204);
    expect(await readFile(path.join(srv.root, 'hello.txt'), 'utf8')).toBe('hello again');
    const get = await dav(srv, 'GET', '/dav/hello.txt');
    expect(get.status).toBe(200);
    expect(get.body).toBe('hello again');
    const etag = get.headers.etag!;
    expect((await dav(srv, 'GET', '/dav/hello.txt', { headers: { range: 'bytes=6-10' } })).body).toBe('again');
    expect((await dav(srv, 'GET', '/dav/hello.txt', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await dav(srv, 'HEAD', '/dav/hello.txt');
    expect(head.headers['content-length']).toBe('11');
    expect(head.body).toBe('');
  });

  it('GET of a large file answers every byte, a range and the headers, from reused buffers', async () => {
    // Above the one-buffer size: written by fs/read.ts pumpFile straight to the socket.
    const big = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 77 }, (_, i) => (i * 31) % 256));
    await writeFile(path.join(srv.root, 'large.bin'), big);
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${srv.url}/dav/large.bin`, { headers: { authorization: basic(admin.username, admin.password), ...headers } });
    const all = await get();
    expect(all.status).toBe(200);
    expect(all.headers.get('content-length')).toBe(String(big.length));
    expect(all.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(all.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await all.arrayBuffer()).equals(big)).toBe(true);
    const part = await get({ range: 'bytes=100000-2700000' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100000-2700000/${big.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(big.subarray(100000, 2700001))).toBe(true);
  });

  it('PUT accepts a chunked body without Content-Length', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('part one, '));
        c.enqueue(new TextEncoder().encode('part two'));
        c.close();
      },
    });
    const res = await fetch(`${srv.url}/dav/chunked.txt`, {
      method: 'PUT',
      headers: { authorization: basic(admin.username, admin.password) },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(201);
    expect(await readFile(path.join(srv.root, 'chunked.txt'), 'utf8')).toBe('part one, part two');
  });

  it('PUT into a missing folder is 409, onto a folder 405; nothing is left behind', async () => {
    expect((await dav(srv, 'PUT', '/dav/nope/a.txt', { body: 'x' })).status).toBe(409);
    expect(existsSync(path.join(srv.root, 'nope'))).toBe(false);
    await mkdir(path.join(srv.root, 'adir'), { recursive: true });
    expect((await dav(srv, 'PUT', '/dav/adir', { body: 'x' })).status).toBe(405);
  });

  it('MKCOL: 201, 405 when taken, 409 without a parent, 415 with a body', async () => {
    expect((await dav(srv, 'MKCOL', '/dav/made')).status).toBe(201);
    expect((await dav(srv, 'MKCOL', '/dav/made')).status).toBe(405);
    expect((await dav(srv, 'MKCOL', '/dav/no/parent')).status).toBe(409);
    expect((await dav(srv, 'MKCOL', '/dav/withbody', { body: '<x/>' })).status).toBe(415);
    expect(existsSync(path.join(srv.root, 'withbody'))).toBe(false);
  });

  it('PROPFIND Depth 0 and 1, hrefs encoded; Depth infinity is 403 propfind-finite-depth', async () => {
    const odd = 'a b#c%d é.txt';
    await mkdir(path.join(srv.root, 'list'), { recursive: true });
    await writeFile(path.join(srv.root, 'list', odd), '12345');
    const one = await dav(srv, 'PROPFIND', '/dav/list/', { headers: { depth: '1' } });
    expect(one.status).toBe(207);
    expect(one.headers['content-type']).toMatch(/^application\/xml/);
    expect(one.body).toContain(`<D:href>/dav/list/a%20b%23c%25d%20%C3%A9.txt</D:href>`);
    expect(hrefs(one.body)).toEqual(['/dav/list/', `/dav/list/${odd}`]);
    expect(one.body).toContain('<D:getcontentlength>5</D:getcontentlength>');
    const zero = await dav(srv, 'PROPFIND', '/dav/list/', { headers: { depth: '0' } });
    expect(hrefs(zero.body)).toEqual(['/dav/list/']);
    expect(zero.body).toContain('<D:resourcetype><D:collection/></D:resourcetype>');
    const inf = await dav(srv, 'PROPFIND', '/dav/list/', { headers: { depth: 'infinity' } });
    expect(inf.status).toBe(403);
    expect(inf.body).toContain('propfind-finite-depth');
  });

  it('PROPFIND Depth 1 of a big folder answers every visible entry once, in name order, with its own properties', async () => {
    // More entries than one batch of stats (fs/children.ts): the answer is made of several.
    const dir = path.join(srv.root, 'bigdir');
    await mkdir(path.join(dir, 'sub folder'), { recursive: true });
    const names = Array.from({ length: 4500 }, (_, i) => `f${i}${i % 3 === 0 ? '.txt' : i % 3 === 1 ? '.jpg' : ''}`);
    for (let i = 0; i < names.length; i += 500) await Promise.all(names.slice(i, i + 500).map((n, k) => writeFile(path.join(dir, n), 'x'.repeat((i + k) % 7))));
    await writeFile(path.join(dir, 'a & b <c>.txt'), 'amp');
    await writeFile(path.join(dir, '.hidden'), 'dot');
    await writeFile(path.join(dir, 'secret.txt'), 'denied');
    await writeFile(path.join(dir, '.coffer-tmp-0123'), 'staging');
    await symlink(path.join(dir, 'f1.jpg'), path.join(dir, 'link-in'));
    await symlink('/etc/passwd', path.join(dir, 'link-out'));
    await symlink(path.join(dir, 'missing'), path.join(dir, 'link-dangling'));
    const u = await srv.createUser({ hideDotfiles: true, rules: [{ regex: false, allow: false, path: '/bigdir/secret.txt', regexp: { raw: '' } }] });
    const res = await davRaw(srv, 'PROPFIND', '/dav/bigdir/', { auth: { username: u.username, password: u.password }, headers: { depth: '1' } });
    expect(res.status).toBe(207);
    const visible = [...names, 'a & b <c>.txt', 'sub folder', 'link-in'].sort();
    expect(hrefs(res.body)).toEqual(['/dav/bigdir/', ...visible.map((n) => `/dav/bigdir/${n}${n === 'sub folder' ? '/' : ''}`)]);
    const responses = new Map(
      [...res.body.matchAll(/<D:response><D:href>([^<]*)<\/D:href>(.*?)<\/D:response>/g)].map((m) => [decodeURIComponent(m[1]!), m[2]!]),
    );
    const prop = (n: string, p: string) => new RegExp(`<D:${p}>([^<]*)</D:${p}>`).exec(responses.get(`/dav/bigdir/${n}`)!)?.[1];
    for (const n of ['f0.txt', 'f2501', 'f4499', 'a & b <c>.txt', 'link-in']) {
      const st = await stat(path.join(dir, n));
      expect(prop(n, 'getcontentlength'), n).toBe(String(st.size));
      expect(prop(n, 'getlastmodified'), n).toBe(new Date(st.mtimeMs).toUTCString());
      expect(prop(n, 'creationdate'), n).toBe(new Date(st.birthtimeMs > 0 ? st.birthtimeMs : st.ctimeMs).toISOString());
      // The same validator GET answers.
      const get = await davRaw(srv, 'HEAD', `/dav/bigdir/${encodeURIComponent(n)}`, { auth: { username: u.username, password: u.password } });
      expect(prop(n, 'getetag')?.replaceAll('&quot;', '"'), n).toBe(get.headers.etag);
    }
    expect(prop('a & b <c>.txt', 'displayname')).toBe('a &amp; b &lt;c&gt;.txt');
    expect(prop('f1.jpg', 'getcontenttype')).toBe('image/jpeg');
    expect(prop('f3.txt', 'getcontenttype')).toMatch(/^text\/plain/);
    expect(prop('f2', 'getcontenttype')).toBe('application/octet-stream');
    expect(prop('link-in', 'getcontenttype')).toBe('application/octet-stream');
    expect(responses.get('/dav/bigdir/sub folder/')).toContain('<D:resourcetype><D:collection/></D:resourcetype>');
    expect(prop('sub folder/', 'getcontentlength')).toBeUndefined();
  });

  it('PROPFIND with <prop> answers unknown properties 404 in their namespace', async () => {
    const body = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><x:color xmlns:x="urn:x"/></D:prop></D:propfind>';
    const res = await dav(srv, 'PROPFIND', '/dav/hello.txt', { headers: { depth: '0', 'content-type': 'application/xml' }, body });
    expect(res.status).toBe(207);
    expect(res.body).toMatch(/<D:getetag>&quot;[0-9a-f]+-[0-9a-f]+&quot;<\/D:getetag>/);
    expect(res.body).toContain('<X:color xmlns:X="urn:x"/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status>');
  });

  it('answers well-formed XML for names and values holding characters XML cannot (U+0001, U+FFFE)', async () => {
    // A file made on disk (or U+FFFE through the web API) used to break the whole folder's listing for every client.
    await mkdir(path.join(srv.root, 'odd'), { recursive: true });
    await writeFile(path.join(srv.root, 'odd', 'bell\u0001.txt'), 'x');
    await writeFile(path.join(srv.root, 'odd', 'nc\ufffe.txt'), 'x');
    const set = '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><Z:v xmlns:Z="urn:z">a&#xFFFE;b</Z:v></D:prop></D:set></D:propertyupdate>';
    expect((await dav(srv, 'PROPPATCH', '/dav/odd/', { body: set })).status).toBe(207);
    const res = await dav(srv, 'PROPFIND', '/dav/odd/', { headers: { depth: '1' } });
    expect(res.status).toBe(207);
    // eslint-disable-next-line no-control-regex
    expect(res.body).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    expect(res.body).toContain('<D:displayname>bell\ufffd.txt</D:displayname>');
    expect(res.body).toContain('a\ufffdb');
    // The hrefs keep the exact names: they are percent-encoded.
    expect(hrefs(res.body)).toEqual(expect.arrayContaining(['/dav/odd/bell\u0001.txt', '/dav/odd/nc\ufffe.txt']));
  });

  it('refuses entity definitions (billion laughs), malformed XML and huge bodies', async () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><D:propfind xmlns:D="DAV:"><D:prop><D:c>&c;</D:c></D:prop></D:propfind>`;
    expect((await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: lol })).status).toBe(400);
    expect((await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop></D:propfind>' })).status).toBe(400);
    expect((await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: '<x:propfind xmlns:x="urn:not-dav"/>' })).status).toBe(400);
    const huge = `<D:propfind xmlns:D="DAV:"><D:prop>${'<D:getetag/>'.repeat(100_000)}</D:prop></D:propfind>`;
    expect((await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: huge })).status).toBe(413);
  });

  it('bounds a PROPFIND: at most 256 property names (400), a body of 64 KiB declared or chunked (413)', async () => {
    const ask = (n: number, pad = '') => `<D:propfind xmlns:D="DAV:"><D:prop>${Array.from({ length: n }, (_, i) => `<D:p${i}/>`).join('')}</D:prop>${pad}</D:propfind>`;
    const ok = await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: ask(256) });
    expect(ok.status).toBe(207);
    const many = await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '1' }, body: ask(257) });
    expect(many.status).toBe(400);
    expect(many.body).toContain('at most 256 properties');
    // Under the names' bound, over the body's: 100 KiB of comment.
    const padded = ask(1, `<!--${'x'.repeat(100 * 1024)}-->`);
    expect((await dav(srv, 'PROPFIND', '/dav/', { headers: { depth: '0' }, body: padded })).status).toBe(413);
    // The same body chunked, without a Content-Length: cut off as it streams.
    const base = new URL(srv.url);
    const chunked = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        { host: base.hostname, port: base.port, method: 'PROPFIND', path: base.pathname.replace(/\/$/, '') + '/dav/', headers: { depth: '0', authorization: basic(admin.username, admin.password) } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        },
      );
      req.on('error', reject);
      for (let i = 0; i < padded.length; i += 8192) req.write(padded.slice(i, i + 8192));
      req.end();
    });
    // A clear 413, not a reset: the rest of the body is left unread and the connection closed after the answer.
    expect(chunked).toEqual({ status: 413, connection: 'close' });
    // A LOCK body is bounded the same way; a PROPPATCH body carries values and may be larger.
    expect((await dav(srv, 'LOCK', '/dav/', { body: `<D:lockinfo xmlns:D="DAV:"><!--${'x'.repeat(100 * 1024)}--></D:lockinfo>` })).status).toBe(413);
  });

  it('refuses a fragment in the request target rather than act on the path before it', async () => {
    await mkdir(path.join(srv.root, 'frag'), { recursive: true });
    expect((await dav(srv, 'DELETE', '/dav/frag/#ment')).status).toBe(400);
    expect(existsSync(path.join(srv.root, 'frag'))).toBe(true);
  });

  it('DELETE removes a file or a folder (204), then 404', async () => {
    await mkdir(path.join(srv.root, 'gone', 'sub'), { recursive: true });
    await writeFile(path.join(srv.root, 'gone', 'sub', 'f'), 'x');
    expect((await dav(srv, 'DELETE', '/dav/gone/')).status).toBe(204);
    expect(existsSync(path.join(srv.root, 'gone'))).toBe(false);
    expect((await dav(srv, 'DELETE', '/dav/gone/')).status).toBe(404);
  });

  it('COPY and MOVE: 201 new, 204 replaced, 412 with Overwrite F, Depth 0 copies a folder alone', async () => {
    await mkdir(path.join(srv.root, 'cm', 'tree'), { recursive: true });
    await writeFile(path.join(srv.root, 'cm', 'tree', 'f.txt'), 'tree');
    await writeFile(path.join(srv.root, 'cm', 'a.txt'), 'A');
    const dest = (p: string) => ({ destination: `${srv.url}/dav/cm/${p}` });
    expect((await dav(srv, 'COPY', '/dav/cm/a.txt', { headers: dest('b.txt') })).status).toBe(201);
    expect((await dav(srv, 'COPY', '/dav/cm/a.txt', { headers: { ...dest('b.txt'), overwrite: 'F' } })).status).toBe(412);
    expect((await dav(srv, 'COPY', '/dav/cm/a.txt', { headers: dest('b.txt') })).status).toBe(204);
    expect((await dav(srv, 'COPY', '/dav/cm/tree', { headers: dest('tree2') })).status).toBe(201);
    expect(await readFile(path.join(srv.root, 'cm', 'tree2', 'f.txt'), 'utf8')).toBe('tree');
    expect((await dav(srv, 'COPY', '/dav/cm/tree', { headers: { ...dest('tree0'), depth: '0' } })).status).toBe(201);
    expect(await readdir(path.join(srv.root, 'cm', 'tree0'))).toEqual([]);
    // A folder replaced by a folder: the old one goes first (RFC 4918 §9.9.3).
    await writeFile(path.join(srv.root, 'cm', 'tree0', 'old.txt'), 'old');
    expect((await dav(srv, 'MOVE', '/dav/cm/tree2', { headers: { destination: '/dav/cm/tree0' } })).status).toBe(204);
    expect(await readdir(path.join(srv.root, 'cm', 'tree0'))).toEqual(['f.txt']);
    expect(existsSync(path.join(srv.root, 'cm', 'tree2'))).toBe(false);
    expect((await dav(srv, 'MOVE', '/dav/cm/b.txt', { headers: dest('c.txt') })).status).toBe(201);
    expect(existsSync(path.join(srv.root, 'cm', 'b.txt'))).toBe(false);
  });

  it('a Destination on another host or outside the mount is 502, onto itself 403', async () => {
    await writeFile(path.join(srv.root, 'd.txt'), 'd');
    expect((await dav(srv, 'COPY', '/dav/d.txt', { headers: { destination: 'http://elsewhere.example/dav/e.txt' } })).status).toBe(502);
    expect((await dav(srv, 'COPY', '/dav/d.txt', { headers: { destination: '/api/resources/e.txt' } })).status).toBe(502);
    expect((await dav(srv, 'COPY', '/dav/d.txt', { headers: { destination: '/dav/d.txt' } })).status).toBe(403);
    expect(existsSync(path.join(srv.root, 'e.txt'))).toBe(false);
  });

  it('fires the same events as the web API', async () => {
    const seen: string[] = [];
    const off = srv.deps.events.on((phase: Phase, event: FileEvent, ctx: FileEventContext) => {
      if (phase === 'after') seen.push(`${event} ${ctx.file.virtual}${ctx.destination ? ' ' + ctx.destination.virtual : ''}`);
    });
    try {
      await dav(srv, 'MKCOL', '/dav/ev');
      await dav(srv, 'PUT', '/dav/ev/a', { body: '1' });
      await dav(srv, 'PUT', '/dav/ev/a', { body: '2' });
      await dav(srv, 'COPY', '/dav/ev/a', { headers: { destination: '/dav/ev/b' } });
      await dav(srv, 'MOVE', '/dav/ev/b', { headers: { destination: '/dav/ev/c' } });
      await dav(srv, 'DELETE', '/dav/ev/c');
    } finally {
      off();
    }
    expect(seen).toEqual(['upload /ev', 'upload /ev/a', 'save /ev/a', 'copy /ev/a /ev/b', 'rename /ev/b /ev/c', 'delete /ev/c']);
  });

  it('is not there with --disable-webdav', async () => {
    const { startServer } = await import('./harness.js');
    const off = await startServer({ disableWebdav: true });
    try {
      expect((await davRaw(off, 'PROPFIND', '/dav/', { auth: admin, headers: { depth: '0' } })).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe('WebDAV hostile input', () => {
  const srv = useServer();
  let outside: string;
  let alice: { username: string; password: string };
  let bob: { username: string; password: string };

  async function setup() {
    if (alice) return;
    await mkdir(path.join(srv.root, 'alice', 'docs'), { recursive: true });
    await mkdir(path.join(srv.root, 'bob'), { recursive: true });
    await writeFile(path.join(srv.root, 'alice', 'docs', 'a.txt'), 'alice');
    await writeFile(path.join(srv.root, 'bob', 'secret.txt'), 'bob');
    await writeFile(path.join(srv.root, 'top.txt'), 'server root');
    outside = await mkdtemp(path.join(tmpdir(), 'coffer-outside-'));
    await writeFile(path.join(outside, 'passwd'), 'outside');
    await symlink(outside, path.join(srv.root, 'alice', 'out'));
    await mkdir(path.join(srv.root, 'alice', 'secret'), { recursive: true });
    await writeFile(path.join(srv.root, 'alice', 'secret', 's.txt'), 's');
    const a = await srv.createUser({ scope: '/alice', rules: [{ regex: false, allow: false, path: '/secret', regexp: { raw: '' } }] });
    const b = await srv.createUser({ scope: '/bob' });
    alice = { username: a.username, password: a.password };
    bob = { username: b.username, password: b.password };
  }
  const as = (who: { username: string; password: string }, method: string, p: string, opts: Parameters<typeof davRaw>[3] = {}) => davRaw(srv, method, p, { auth: who, ...opts });

  it('`..`, encoded `..`, encoded slashes and backslashes never leave the scope', async () => {
    await setup();
    for (const p of ['/dav/../top.txt', '/dav/%2e%2e/top.txt', '/dav/docs/%2e%2e/%2e%2e/top.txt', '/dav/docs%2f..%2f..%2ftop.txt', '/dav/..%5ctop.txt', '/dav/%2E%2E/bob/secret.txt']) {
      const res = await as(alice, 'GET', p);
      expect([400, 403, 404], p).toContain(res.status);
      expect(res.body).not.toContain('server root');
      expect(res.body).not.toContain('bob');
    }
  });

  it('NUL in a path or a Destination is 400', async () => {
    await setup();
    expect((await as(alice, 'GET', '/dav/docs/a.txt%00.png')).status).toBe(400);
    expect((await as(alice, 'COPY', '/dav/docs/a.txt', { headers: { destination: '/dav/docs/b%00.txt' } })).status).toBe(400);
  });

  it('a Destination cannot reach another scope or the server root', async () => {
    await setup();
    for (const d of ['/dav/../bob/x.txt', '/dav/%2e%2e/bob/x.txt', `${srv.url}/dav/..%2f..%2fbob/x.txt`, '/dav/docs/%252e%252e/x.txt', '/dav\\..\\bob\\x.txt', `/dav/..%5cbob%5cx.txt`]) {
      const res = await as(alice, 'COPY', '/dav/docs/a.txt', { headers: { destination: d } });
      expect(res.status, d).not.toBe(500);
    }
    expect(await readdir(path.join(srv.root, 'bob'))).toEqual(['secret.txt']);
    expect(existsSync(path.join(srv.root, 'x.txt'))).toBe(false);
    const move = await as(alice, 'MOVE', '/dav/docs/a.txt', { headers: { destination: '/dav/../../bob/moved.txt' } });
    expect(move.status).not.toBe(201);
    expect(existsSync(path.join(srv.root, 'bob', 'moved.txt'))).toBe(false);
    expect(await readdir(path.join(srv.root, 'bob'))).toEqual(['secret.txt']);
  });

  it('a symbolic link out of the scope is invisible and unusable', async () => {
    await setup();
    const list = await as(alice, 'PROPFIND', '/dav/', { headers: { depth: '1' } });
    expect(hrefs(list.body)).not.toContain('/dav/out/');
    expect((await as(alice, 'GET', '/dav/out/passwd')).status).toBe(403);
    expect((await as(alice, 'PUT', '/dav/out/new.txt', { body: 'x' })).status).toBe(403);
    expect((await as(alice, 'COPY', '/dav/docs/a.txt', { headers: { destination: '/dav/out/copied.txt' } })).status).toBe(403);
    expect(await readdir(outside)).toEqual(['passwd']);
  });

  it('a rule-denied path is absent from PROPFIND and 404 on GET, PUT, MOVE, COPY, DELETE', async () => {
    await setup();
    const list = await as(alice, 'PROPFIND', '/dav/', { headers: { depth: '1' } });
    expect(hrefs(list.body)).not.toContain('/dav/secret/');
    expect((await as(alice, 'PROPFIND', '/dav/secret/', { headers: { depth: '0' } })).status).toBe(404);
    expect((await as(alice, 'GET', '/dav/secret/s.txt')).status).toBe(404);
    expect((await as(alice, 'PUT', '/dav/secret/s.txt', { body: 'overwritten' })).status).toBe(404);
    expect((await as(alice, 'MOVE', '/dav/secret/s.txt', { headers: { destination: '/dav/docs/s.txt' } })).status).toBe(404);
    expect((await as(alice, 'COPY', '/dav/secret/s.txt', { headers: { destination: '/dav/docs/s.txt' } })).status).toBe(404);
    expect((await as(alice, 'DELETE', '/dav/secret/s.txt')).status).toBe(404);
    expect([403, 404]).toContain((await as(alice, 'COPY', '/dav/docs/a.txt', { headers: { destination: '/dav/secret/in.txt' } })).status);
    expect(await readFile(path.join(srv.root, 'alice', 'secret', 's.txt'), 'utf8')).toBe('s');
    expect(existsSync(path.join(srv.root, 'alice', 'secret', 'in.txt'))).toBe(false);
  });

  it('staging files and the database are never addressable', async () => {
    await setup();
    expect((await dav(srv, 'PUT', '/dav/.coffer-tmp-x', { body: 'x' })).status).toBe(403);
    expect(existsSync(path.join(srv.root, '.coffer-tmp-x'))).toBe(false);
  });

  it('each method needs its permission', async () => {
    await setup();
    await mkdir(path.join(srv.root, 'perm'), { recursive: true });
    await writeFile(path.join(srv.root, 'perm', 'f.txt'), 'keep');
    const none = { create: false, rename: false, modify: false, delete: false, download: false, share: false, execute: false, admin: false };
    const u = await srv.createUser({ scope: '/perm', perm: none });
    const who = { username: u.username, password: u.password };
    expect((await as(who, 'DELETE', '/dav/f.txt')).status).toBe(403);
    expect((await as(who, 'GET', '/dav/f.txt')).status).toBe(403);
    expect((await as(who, 'PUT', '/dav/f.txt', { body: 'changed' })).status).toBe(403);
    expect((await as(who, 'PUT', '/dav/new.txt', { body: 'new' })).status).toBe(403);
    expect((await as(who, 'MKCOL', '/dav/newdir')).status).toBe(403);
    expect((await as(who, 'COPY', '/dav/f.txt', { headers: { destination: '/dav/g.txt' } })).status).toBe(403);
    expect((await as(who, 'MOVE', '/dav/f.txt', { headers: { destination: '/dav/g.txt' } })).status).toBe(403);
    expect(await readdir(path.join(srv.root, 'perm'))).toEqual(['f.txt']);
    expect(await readFile(path.join(srv.root, 'perm', 'f.txt'), 'utf8')).toBe('keep');
    // Listing needs no permission beyond signing in, as in the web API.
    expect((await as(who, 'PROPFIND', '/dav/', { headers: { depth: '1' } })).status).toBe(207);
    // bob's scope stays bob's.
    expect((await as(bob, 'GET', '/dav/secret.txt')).body).toBe('bob');
  });
});
