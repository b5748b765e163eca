/** The proxy, hook and noauth methods of POST /api/login: docs/api.md §2, S72, S73. */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, NO_LOCAL_PASSWORD, verifyPassword } from '../src/auth/passwords.js';
import { defaultAuther } from '../src/features/settings/repository.js';
import { ADMIN, useServer, type TestServer } from './harness.js';

type TokenClaims = { user: { id: number; username: string; perm: Record<string, boolean>; commands: string[]; locale: string; lockPassword: boolean } };
const claims = (token: string) => decodeJwt(token) as unknown as TokenClaims;
const post = (srv: TestServer, init: RequestInit & { json?: unknown } = {}) => srv.fetch('/api/login', { method: 'POST', ...init });

describe('proxy method behind a trusted proxy', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  beforeAll(async () => {
    await srv.deps.settings.saveAuther({ ...defaultAuther('proxy'), header: 'X-Remote-User' });
    const s = await srv.deps.settings.settings();
    // Generous defaults must not leak into provisioned users (S73).
    await srv.deps.settings.saveSettings({ ...s, defaults: { ...s.defaults, scope: '/', perm: { ...s.defaults.perm, admin: true, execute: true }, commands: ['sh'], locale: 'it' } });
  });
  const as = (name: string | undefined, body: unknown = {}) => post(srv, { json: body, headers: name === undefined ? {} : { 'X-Remote-User': name } });

  it('logs in an existing user named by the header, whatever the body', async () => {
    const res = await as(ADMIN.username, { username: 'someone', password: 'wrong' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(claims(await res.text()).user.username).toBe(ADMIN.username);
  });

  it('creates an unknown user on the fly: locked password, no power, its own home (S73)', async () => {
    const res = await as('proxy-user');
    expect(res.status).toBe(200);
    const token = await res.text();
    const u = (await srv.deps.users.byUsername('proxy-user'))!;
    expect(claims(token).user.id).toBe(u.id);
    expect(u.lockPassword).toBe(true);
    expect(u.perm.admin).toBe(false);
    expect(u.perm.execute).toBe(false);
    expect(u.perm.create).toBe(true);
    expect(u.commands).toEqual([]);
    expect(u.rules).toEqual([]);
    expect(u.locale).toBe('it');
    expect(u.scope).toBe('/users/proxy-user');
    // No local password: nothing typed signs it in, and changes are not confirmed by a password (confirm.ts).
    expect(u.passwordHash).toBe(NO_LOCAL_PASSWORD);
    const home = await stat(path.join(srv.root, 'users', 'proxy-user'));
    expect(home.isDirectory()).toBe(true);
    expect(home.mode & 0o777).toBe(0o750);
    // The next login finds the same user.
    const count = await srv.deps.users.count();
    expect(claims(await (await as('proxy-user')).text()).user.id).toBe(u.id);
    expect(await srv.deps.users.count()).toBe(count);
  });

  it('creates a new user only once when its first requests arrive together', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => as('rush-user')));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await srv.deps.users.byUsernameFolded('rush-user')).length).toBe(1);
  });

  it('answers 401 without the header or with an empty one', async () => {
    expect((await as(undefined)).status).toBe(401);
    expect((await as('')).status).toBe(401);
  });

  it('answers 400 for an overlong name and creates nothing', async () => {
    const before = await srv.deps.users.count();
    expect((await as('a'.repeat(300))).status).toBe(400);
    expect(await srv.deps.users.count()).toBe(before);
  });
});

describe('proxy method from an untrusted peer', () => {
  const srv = useServer({ trustedProxies: ['10.0.0.0/8'] });
  beforeAll(async () => {
    await srv.deps.settings.saveAuther({ ...defaultAuther('proxy'), header: 'X-Remote-User' });
  });
  it('ignores the header (401) and creates nothing, even with X-Forwarded-For naming a trusted address', async () => {
    const before = await srv.deps.users.count();
    for (const headers of <Record<string, string>[]>[{ 'X-Remote-User': ADMIN.username }, { 'X-Remote-User': 'stranger' }, { 'X-Remote-User': ADMIN.username, 'X-Forwarded-For': '10.1.2.3' }]) {
      const res = await post(srv, { json: {}, headers });
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('401 Unauthorized\n');
    }
    expect(await srv.deps.users.count()).toBe(before);
    // Body credentials are no way in either.
    expect((await post(srv, { json: { username: ADMIN.username, password: ADMIN.password } })).status).toBe(401);
  });
});

describe('hook method', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  let dir = '';
  let seq = 0;
  const HOOK = `#!/bin/sh
# The test's auth hook: argv and environment go to files for the assertions.
printf '%s\\n' "$0" "$@" > "$1/argv"
printf '%s\\n%s\\n' "$USERNAME" "$PASSWORD" > "$1/env"
case "$USERNAME" in
  blocked) echo "hook.action=block" ;;
  passer*) echo "hook.action=pass" ;;
  failer) echo "hook.action=auth"; exit 3 ;;
  weird) echo "hook.action=maybe" ;;
  silent) echo "nothing to say" ;;
  boss) printf 'noise\\r\\n  hook.action = auth \\r\\nuser.perm.admin=true\\r\\nuser.perm.execute=TRUE\\r\\n' ;;
  scoped) printf 'hook.action=auth\\nuser.scope=/projects/x\\n' ;;
  plain*) echo "hook.action=auth" ;;
  checked) if [ "$PASSWORD" = "checked-password-1" ]; then echo "hook.action=auth"; else echo "hook.action=block"; fi ;;
  *) printf 'hook.action=auth\\nuser.locale=fr\\nuser.viewMode=list\\nuser.commands=ls  cat\\nuser.sorting.by=size\\nuser.sorting.asc=true\\nuser.hideDotfiles=true\\nuser.singleClick=yes\\nuser.perm.share=false\\nunknown.key=1\\ngarbage line\\n' ;;
esac
`;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-hook-'));
    await writeFile(path.join(dir, 'hook.sh'), HOOK);
    await chmod(path.join(dir, 'hook.sh'), 0o755);
    await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: `${dir}/hook.sh ${dir}` });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const login = (username: string, password: string) =>
    post(srv, { json: { username, password }, headers: { 'X-Forwarded-For': `10.3.${++seq}.1` } });

  it('creates a user from the hook values over the S73 defaults; credentials only in the environment (S72)', async () => {
    const password = 'shell $(touch pwned) `id`; "quoted" \'single\'';
    const res = await login('hook-new', password);
    expect(res.status).toBe(200);
    const argv = await readFile(path.join(dir, 'argv'), 'utf8');
    expect(argv).toBe(`${dir}/hook.sh\n${dir}\n`);
    expect(await readFile(path.join(dir, 'env'), 'utf8')).toBe(`hook-new\n${password}\n`);
    await expect(stat(path.join(process.cwd(), 'pwned'))).rejects.toThrow();
    const u = (await srv.deps.users.byUsername('hook-new'))!;
    expect(claims(await res.text()).user.id).toBe(u.id);
    expect(u.locale).toBe('fr');
    expect(u.viewMode).toBe('list');
    expect(u.commands).toEqual(['ls', 'cat']);
    expect(u.sorting).toEqual({ by: 'size', asc: true });
    expect(u.hideDotfiles).toBe(true);
    expect(u.singleClick).toBe(false); // only the exact text "true" is true
    expect(u.perm.share).toBe(false);
    expect(u.perm.admin).toBe(false);
    expect(u.perm.execute).toBe(false);
    expect(u.lockPassword).toBe(true);
    expect(u.scope).toBe('/users/hook-new');
    expect((await stat(path.join(srv.root, 'users', 'hook-new'))).isDirectory()).toBe(true);
    expect(await verifyPassword(u.passwordHash, password)).toBe(true);
  });

  it('accepts CRLF and padded keys; perm.admin=true from the hook implies every permission', async () => {
    const res = await login('boss', 'boss-password-123');
    expect(res.status).toBe(200);
    const u = (await srv.deps.users.byUsername('boss'))!;
    expect(Object.values(u.perm).every(Boolean)).toBe(true);
  });

  it('lets an explicit user.scope win over the home folder', async () => {
    expect((await login('scoped', 'scoped-password-1')).status).toBe(200);
    expect((await srv.deps.users.byUsername('scoped'))!.scope).toBe('/projects/x');
  });

  it('answers 500 when a new user\'s password fails the password rules', async () => {
    const res = await login('plain-short', 'short');
    expect(res.status).toBe(500);
    expect(await srv.deps.users.byUsername('plain-short')).toBeUndefined();
  });

  it('rewrites an existing user whose password changed, locks it and ends its other sessions', async () => {
    const u = await srv.createUser({ username: 'plain-existing', password: 'old-password-1234' });
    const oldToken = await srv.deps.tokens.issue(u);
    const same = await login('plain-existing', 'old-password-1234');
    expect(same.status).toBe(200);
    expect((await srv.fetch('/api/renew', { method: 'POST', token: oldToken })).status).toBe(200);
    expect((await srv.deps.users.byId(u.id))!.lockPassword).toBe(false); // nothing to rewrite
    const changed = await login('plain-existing', 'new-password-5678');
    expect(changed.status).toBe(200);
    const after = (await srv.deps.users.byId(u.id))!;
    expect(after.lockPassword).toBe(true);
    expect(await verifyPassword(after.passwordHash, 'new-password-5678')).toBe(true);
    expect((await srv.fetch('/api/renew', { method: 'POST', token: oldToken })).status).toBe(401);
    expect((await srv.fetch('/api/renew', { method: 'POST', token: await changed.text() })).status).toBe(200);
  });

  it('rewrites an existing user from the hook values when it printed any', async () => {
    const u = await srv.createUser({ username: 'rewritten', password: 'same-password-1234', locale: 'en' });
    expect((await login('rewritten', 'same-password-1234')).status).toBe(200);
    const after = (await srv.deps.users.byId(u.id))!;
    expect(after.locale).toBe('fr');
    expect(after.lockPassword).toBe(true);
    expect(after.scope).toBe(u.scope);
  });

  it('falls back to the stored password on "pass"', async () => {
    await srv.createUser({ username: 'passer', passwordHash: await hashPassword('stored-password-1') });
    expect((await login('passer', 'stored-password-1')).status).toBe(200);
    const wrong = await login('passer', 'wrong-password-1');
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toBe('403 Forbidden\n');
    expect((await login('passer-unknown', 'whatever-password')).status).toBe(403);
  });

  it('asks the hook for the current password that confirms a change to the sign-in (S35)', async () => {
    const res = await login('checked', 'checked-password-1');
    expect(res.status).toBe(200);
    const token = await res.text();
    const appPassword = (current_password?: string) =>
      srv.fetch('/api/app-passwords', {
        method: 'POST',
        token,
        headers: { 'X-Forwarded-For': `10.4.${++seq}.1` },
        json: { name: 'dav', readOnly: false, expiresInDays: 0, current_password },
      });
    for (const wrong of [undefined, 'not-the-password']) expect((await appPassword(wrong)).status, String(wrong)).toBe(400);
    expect((await appPassword('checked-password-1')).status).toBe(201);
    // "pass": the stored password decides.
    await srv.createUser({ username: 'passer-confirm', passwordHash: await hashPassword('stored-password-2') });
    const passer = await (await login('passer-confirm', 'stored-password-2')).text();
    const turnOff = (current_password: string) =>
      srv.fetch('/api/second-factor', { method: 'DELETE', token: passer, json: { current_password } });
    expect((await turnOff('wrong-password-2')).status).toBe(400);
    expect((await turnOff('stored-password-2')).status).toBe(404); // right password; there was nothing to turn off
  });

  it('answers 403 on "block", 500 on a non-zero exit, an unknown or missing action', async () => {
    expect((await login('blocked', 'any-password-123')).status).toBe(403);
    expect((await login('failer', 'any-password-123')).status).toBe(500);
    expect((await login('weird', 'any-password-123')).status).toBe(500);
    expect((await login('silent', 'any-password-123')).status).toBe(500);
    expect(await srv.deps.users.byUsername('failer')).toBeUndefined();
  });

  it('validates the body like the json method (S32) without running the hook', async () => {
    await rm(path.join(dir, 'argv'), { force: true });
    expect((await post(srv, { json: { username: 1, password: 'x' } })).status).toBe(400);
    expect((await post(srv, { body: '{"username":' })).status).toBe(400);
    expect((await post(srv, { json: { username: 'x', password: 'p'.repeat(1025) } })).status).toBe(413);
    await expect(stat(path.join(dir, 'argv'))).rejects.toThrow();
  });

  it('counts blocked attempts towards the address limit (S30)', async () => {
    const from = { 'X-Forwarded-For': '10.99.0.1' };
    for (let i = 0; i < 10; i++) expect((await post(srv, { json: { username: 'blocked', password: 'x' }, headers: from })).status).toBe(403);
    const res = await post(srv, { json: { username: 'plain-ok', password: 'plain-password-1' }, headers: from });
    expect(res.status).toBe(429);
    expect(await srv.deps.users.byUsername('plain-ok')).toBeUndefined();
  });

  it('answers 500 when the command cannot be started', async () => {
    await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: `${dir}/missing.sh` });
    try {
      expect((await login('plain-x', 'plain-password-1')).status).toBe(500);
    } finally {
      await srv.deps.settings.saveAuther({ ...defaultAuther('hook'), command: `${dir}/hook.sh ${dir}` });
    }
  });
});

describe('noauth method', () => {
  const srv = useServer();
  beforeAll(async () => {
    await srv.deps.settings.saveAuther(defaultAuther('noauth'));
  });
  it('logs in as user 1 whatever the body says', async () => {
    for (const init of [{}, { json: {} }, { json: { username: 'other', password: 'wrong' } }]) {
      const res = await post(srv, init);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain');
      expect(claims(await res.text()).user.id).toBe(1);
    }
  });
});
