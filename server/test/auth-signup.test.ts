/** POST /api/signup: docs/api.md §2, S32, S33, S65, S73. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';

async function enableSignup(srv: TestServer, over: Record<string, unknown> = {}) {
  const s = await srv.deps.settings.settings();
  await srv.deps.settings.saveSettings({ ...s, signup: true, ...over });
}

describe('POST /api/signup while signup is off (default)', () => {
  const srv = useServer();
  it('answers 405 and creates nothing', async () => {
    expect((await srv.deps.settings.settings()).signup).toBe(false);
    const before = await srv.deps.users.count();
    const res = await srv.fetch('/api/signup', { method: 'POST', json: { username: 'newbie', password: 'a-long-enough-password' } });
    expect(res.status).toBe(405);
    expect(await res.text()).toBe('405 Method Not Allowed\n');
    expect(await srv.deps.users.count()).toBe(before);
    expect(await srv.deps.users.byUsername('newbie')).toBeUndefined();
  });
});

describe('POST /api/signup', () => {
  // Each test signs up from its own address (S33's per-address limit).
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });
  let seq = 0;
  beforeAll(async () => {
    await enableSignup(srv);
  });
  beforeEach(() => {
    seq++;
  });
  const signup = (body: unknown, headers: Record<string, string> = {}) =>
    srv.fetch('/api/signup', { method: 'POST', json: body, headers: { 'X-Forwarded-For': `10.2.${seq}.1`, ...headers } });

  it('creates a powerless user in its own home and answers "200 OK\\n"; the user can log in', async () => {
    const res = await signup({ username: 'alice', password: 'alice-password-123' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('200 OK\n');
    const u = (await srv.deps.users.byUsername('alice'))!;
    expect(u).toBeDefined();
    const defaults = (await srv.deps.settings.settings()).defaults;
    expect(u.scope).toBe('/users/alice');
    expect(u.perm).toEqual({ ...defaults.perm, admin: false, execute: false });
    expect(u.commands).toEqual([]);
    expect(u.rules).toEqual([]);
    expect(u.lockPassword).toBe(false);
    expect(u.locale).toBe(defaults.locale);
    expect(u.viewMode).toBe(defaults.viewMode);
    expect(u.sorting).toEqual(defaults.sorting);
    expect(u.passwordHash).toMatch(/^\$argon2id\$/);
    const home = await stat(path.join(srv.root, 'users', 'alice'));
    expect(home.isDirectory()).toBe(true);
    expect(home.mode & 0o777).toBe(0o750);
    const token = await srv.login('alice', 'alice-password-123');
    expect((decodeJwt(token) as { user: { perm: { admin: boolean } } }).user.perm.admin).toBe(false);
  });

  it('ignores perm, scope, rules, commands and other fields in the body (S33)', async () => {
    const res = await signup({
      username: 'mallory',
      password: 'mallory-password-123',
      scope: '/',
      perm: { admin: true, execute: true },
      commands: ['rm', 'sh'],
      rules: [{ regex: false, allow: true, path: '/', regexp: null }],
      lockPassword: true,
      id: 1,
    });
    expect(res.status).toBe(200);
    const u = (await srv.deps.users.byUsername('mallory'))!;
    expect(u.id).not.toBe(1);
    expect(u.scope).toBe('/users/mallory');
    expect(u.perm.admin).toBe(false);
    expect(u.perm.execute).toBe(false);
    expect(u.commands).toEqual([]);
    expect(u.rules).toEqual([]);
    expect(u.lockPassword).toBe(false);
  });

  it('never grants admin, execute or commands even when the defaults do, and never scope "/"', async () => {
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({
      ...s,
      createUserDir: false,
      defaults: { ...s.defaults, scope: '/', perm: { ...s.defaults.perm, admin: true, execute: true }, commands: ['ls'] },
    });
    try {
      expect((await signup({ username: 'eve', password: 'eve-password-1234' })).status).toBe(200);
      const u = (await srv.deps.users.byUsername('eve'))!;
      expect(u.perm.admin).toBe(false);
      expect(u.perm.execute).toBe(false);
      expect(u.commands).toEqual([]);
      expect(u.scope).toBe('/users/eve');
    } finally {
      await srv.deps.settings.saveSettings(s);
    }
  });

  it('cleans the name for the home folder and uses userHomeBasePath', async () => {
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...s, userHomeBasePath: '/homes/' });
    try {
      expect((await signup({ username: ' Jo  Doe/../x ', password: 'jo-doe-password-1' })).status).toBe(200);
      const u = (await srv.deps.users.byUsername(' Jo  Doe/../x '))!;
      expect(u.scope).toBe('/homes/Jo-Doe-x');
      expect((await stat(path.join(srv.root, 'homes', 'Jo-Doe-x'))).isDirectory()).toBe(true);
    } finally {
      await srv.deps.settings.saveSettings(s);
    }
  });

  it('answers 409 for a taken name, compared case-insensitively, and for a taken home', async () => {
    expect((await signup({ username: 'bob', password: 'bob-password-1234' })).status).toBe(200);
    const count = await srv.deps.users.count();
    for (const username of ['bob', 'BOB', 'Bob']) {
      const res = await signup({ username, password: 'other-password-1234' });
      expect(res.status, username).toBe(409);
      expect(await res.text()).toBe('409 Conflict\n');
    }
    // "bob?" cleans to the home of "bob-"… and "bob " to the home of "bob": taken.
    expect((await signup({ username: 'bob ', password: 'other-password-1234' })).status).toBe(409);
    expect((await signup({ username: ADMIN.username.toUpperCase(), password: 'other-password-1234' })).status).toBe(409);
    expect(await srv.deps.users.count()).toBe(count);
    // The first bob's password is unchanged.
    expect(await srv.login('bob', 'bob-password-1234')).toBeTruthy();
  });

  it('answers 400 for malformed JSON, empty bodies, non-objects and wrong types (S65)', async () => {
    const before = await srv.deps.users.count();
    for (const body of ['{"username": "x",', '[]', '"x"', '7', 'null', { username: 5, password: 'a-long-enough-password' }, { username: 'carl', password: ['a'] }, { username: 'carl' }, { password: 'a-long-enough-password' }]) {
      const res = await signup(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const empty = await srv.fetch('/api/signup', { method: 'POST', headers: { 'X-Forwarded-For': `10.2.${seq}.1` } });
    expect(empty.status).toBe(400);
    expect(await srv.deps.users.count()).toBe(before);
  });

  it('answers 400 for an empty name or password, control characters and names over 255 characters', async () => {
    const before = await srv.deps.users.count();
    const cases: [unknown, string][] = [
      [{ username: '', password: 'a-long-enough-password' }, 'empty name'],
      [{ username: '   ', password: 'a-long-enough-password' }, 'blank name'],
      [{ username: 'dave', password: '' }, 'empty password'],
      [{ username: 'da\u0000ve', password: 'a-long-enough-password' }, 'NUL'],
      [{ username: 'da\nve', password: 'a-long-enough-password' }, 'newline'],
      [{ username: 'da\u007fve', password: 'a-long-enough-password' }, 'DEL'],
      [{ username: 'd'.repeat(256), password: 'a-long-enough-password' }, '256 chars'],
      [{ username: '..', password: 'a-long-enough-password' }, 'no folder name left'],
    ];
    for (const [body, why] of cases) {
      const res = await signup(body);
      expect(res.status, why).toBe(400);
    }
    expect(await (await signup({ username: 'dave', password: '' })).text()).toBe('400 Bad Request (password is empty)\n');
    expect(await srv.deps.users.count()).toBe(before);
    expect((await signup({ username: 'd'.repeat(255), password: 'a-long-enough-password' })).status).toBe(200);
  });

  it('applies the password rules with File Browser\'s wording', async () => {
    const short = await signup({ username: 'frank', password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toBe('400 Bad Request (password is too short, minimum length is 12)\n');
    const easy = await signup({ username: 'frank', password: 'q1w2e3r4t5y6' });
    expect(await easy.text()).toBe('400 Bad Request (password is too easy)\n');
    expect(await srv.deps.users.byUsername('frank')).toBeUndefined();
    const s = await srv.deps.settings.settings();
    await srv.deps.settings.saveSettings({ ...s, minimumPasswordLength: 20 });
    try {
      const res = await signup({ username: 'frank', password: 'nineteen-characters' });
      expect(await res.text()).toBe('400 Bad Request (password is too short, minimum length is 20)\n');
      expect((await signup({ username: 'frank', password: 'twenty-characters-ok' })).status).toBe(200);
    } finally {
      await srv.deps.settings.saveSettings(s);
    }
  });

  it('answers 413 above 64 KiB of body and for a password above 1024 bytes (S32)', async () => {
    const before = await srv.deps.users.count();
    expect((await signup({ username: 'gina', password: 'gina-password-123', pad: 'x'.repeat(65 * 1024) })).status).toBe(413);
    expect((await signup({ username: 'gina', password: 'p'.repeat(2000) })).status).toBe(413);
    expect(await srv.deps.users.count()).toBe(before);
    expect((await srv.fetch('/health')).status).toBe(200);
  });

  it('treats SQL metacharacters in the name as text', async () => {
    expect((await signup({ username: "' OR 1=1 --", password: 'sql-password-1234' })).status).toBe(200);
    const u = (await srv.deps.users.byUsername("' OR 1=1 --"))!;
    expect(u.scope).toBe('/users/-OR-1-1-');
    expect((await srv.deps.users.byUsername(ADMIN.username))!.perm.admin).toBe(true);
  });

  it('answers 429 with Retry-After from the 21st signup request of an address within an hour (S33)', async () => {
    const from = { 'X-Forwarded-For': '10.9.9.9' };
    for (let i = 0; i < 20; i++) {
      const res = await signup({ username: 42, password: 'x' }, from);
      expect(res.status).toBe(400);
    }
    const limited = await signup({ username: 'late', password: 'late-password-123' }, from);
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe('');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    expect(await srv.deps.users.byUsername('late')).toBeUndefined();
    // Other addresses and logins are not affected.
    expect((await signup({ username: 'late', password: 'late-password-123' }, { 'X-Forwarded-For': '10.9.9.10' })).status).toBe(200);
    expect((await srv.fetch('/api/login', { method: 'POST', json: { username: 'late', password: 'late-password-123' }, headers: from })).status).toBe(200);
  });
});
