/**
 * Settings API (docs/api.md §4) over real HTTP: S14, S39, S65, S70, S80, full replacement, read-back
 * defaults, round trip. Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import type { Settings } from '@coffer/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';

const EVENTS = ['after_copy', 'after_delete', 'after_rename', 'after_save', 'after_upload', 'before_copy', 'before_delete', 'before_rename', 'before_save', 'before_upload'];
const noCommands = () => Object.fromEntries(EVENTS.map((e) => [e, [] as string[]]));

async function getSettings(srv: TestServer, token: string): Promise<Settings> {
  const res = await srv.fetch('/api/settings', { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Settings;
}

function putSettings(srv: TestServer, token: string, body: unknown) {
  return srv.fetch('/api/settings', { method: 'PUT', token, json: body });
}

async function storedText(srv: TestServer): Promise<string> {
  const row = await srv.deps.db.kysely.selectFrom('kv').select('value').where('key', '=', 'settings').executeTakeFirstOrThrow();
  return row.value;
}

describe('settings API', () => {
  const srv = useServer();
  let admin: string;
  beforeAll(async () => {
    admin = await srv.login();
  });

  it('answers 401 without a token and 403 for a non-admin, GET and PUT (S14)', async () => {
    expect((await srv.fetch('/api/settings')).status).toBe(401);
    expect((await srv.fetch('/api/settings', { method: 'PUT', json: { signup: true } })).status).toBe(401);
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    const get = await srv.fetch('/api/settings', { token });
    expect(get.status).toBe(403);
    expect(await get.text()).toBe('403 Forbidden\n');
    const before = await storedText(srv);
    expect((await putSettings(srv, token, { signup: true })).status).toBe(403);
    // A non-admin's malformed body is still a 403: permission comes before the body.
    expect((await srv.fetch('/api/settings', { method: 'PUT', token, body: '{' })).status).toBe(403);
    expect(await storedText(srv)).toBe(before);
  });

  it('answers the first-run defaults, exactly these fields, and no key or secret (S14)', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, recaptcha: { host: 'https://recaptcha.example', key: 'site-key-1', secret: 'recaptcha-secret-xyz' } });
    try {
      const res = await srv.fetch('/api/settings', { token: admin });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache, no-store, must-revalidate');
      const body = await res.text();
      const key = Buffer.from((await srv.deps.settings.signingKey())!).toString('base64');
      expect(body).not.toContain(key);
      expect(body).not.toContain(key.slice(0, 16));
      expect(body).not.toContain('recaptcha-secret-xyz');
      expect(body).not.toMatch(/"key"|secret/i);
      expect(JSON.parse(body)).toEqual({
        signup: false,
        hideLoginButton: true,
        createUserDir: false,
        minimumPasswordLength: 12,
        userHomeBasePath: '/users',
        defaults: {
          scope: '.', locale: 'en', viewMode: 'mosaic', singleClick: false, redirectAfterCopyMove: true,
          sorting: { by: 'name', asc: false },
          perm: { admin: false, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true },
          commands: [], hideDotfiles: false, dateFormat: false, aceEditorTheme: '', quota: 0,
        },
        authMethod: 'json',
        rules: [],
        branding: { name: '', disableExternal: false, disableUsedPercentage: false, files: '', theme: '', color: '' },
        tus: { chunkSize: 10485760, retryCount: 5 },
        shell: [],
        commands: noCommands(),
        // Coffer's: left out, it keeps its default (docs/api.md §4.2).
        webdav: { refuseMacMetadata: true },
      });
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
  });

  it('reports authMethod from the auther record and ignores it on PUT', async () => {
    const auther = await srv.deps.settings.auther();
    await srv.deps.settings.saveAuther({ ...auther, method: 'hook', command: '/bin/false' });
    try {
      const s = await getSettings(srv, admin);
      expect(s.authMethod).toBe('hook');
      expect((await putSettings(srv, admin, { ...s, authMethod: 'noauth' })).status).toBe(200);
      expect((await srv.deps.settings.auther()).method).toBe('hook');
      expect((await getSettings(srv, admin)).authMethod).toBe('hook');
    } finally {
      await srv.deps.settings.saveAuther(auther);
    }
  });

  it('round-trips: GET → PUT → GET is identical, values and rule order verbatim', async () => {
    const original = await getSettings(srv, admin);
    const edited: Settings = {
      ...original,
      signup: true,
      hideLoginButton: false,
      createUserDir: true,
      minimumPasswordLength: 14,
      userHomeBasePath: '/home',
      defaults: { ...original.defaults, scope: '/shared', locale: 'pt-br', viewMode: 'list', sorting: { by: 'size', asc: true }, commands: ['ls', 'du'], aceEditorTheme: 'twilight' },
      rules: [
        { regex: false, allow: false, path: '/private', regexp: { raw: '' } },
        { regex: true, allow: false, path: '', regexp: { raw: '\\.key$' } },
        { regex: false, allow: true, path: '/private/open', regexp: null },
      ],
      branding: { name: 'Coffer <b>&', disableExternal: true, disableUsedPercentage: true, files: '/srv/brand', theme: 'dark', color: '#112233' },
      tus: { chunkSize: 1048576, retryCount: 0 },
      shell: ['sh', '-c'],
      commands: { ...noCommands(), before_save: ['echo a', 'echo b'], after_upload: ['true'] },
    };
    let res = await putSettings(srv, admin, edited);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('200 OK\n');
    const first = await getSettings(srv, admin);
    expect(first).toEqual(edited);
    res = await putSettings(srv, admin, first);
    expect(res.status).toBe(200);
    expect(await getSettings(srv, admin)).toEqual(edited);
    // And back to the defaults.
    expect((await putSettings(srv, admin, original)).status).toBe(200);
    expect(await getSettings(srv, admin)).toEqual(original);
  });

  it('replaces everything: left-out fields become zero values, then the read-back defaults', async () => {
    const original = await getSettings(srv, admin);
    try {
      expect((await putSettings(srv, admin, {})).status).toBe(200);
      expect(await getSettings(srv, admin)).toEqual({
        signup: false,
        hideLoginButton: false,
        createUserDir: false,
        minimumPasswordLength: 12,
        userHomeBasePath: '/users',
        defaults: {
          scope: '', locale: 'en', viewMode: 'mosaic', singleClick: false, redirectAfterCopyMove: false,
          sorting: { by: '', asc: false },
          perm: { admin: false, execute: false, create: false, rename: false, modify: false, delete: false, share: false, download: false },
          commands: [], hideDotfiles: false, dateFormat: false, aceEditorTheme: '', quota: 0,
        },
        authMethod: 'json',
        rules: [],
        branding: { name: '', disableExternal: false, disableUsedPercentage: false, files: '', theme: '', color: '' },
        tus: { chunkSize: 10485760, retryCount: 5 },
        shell: [],
        commands: noCommands(),
        // Coffer's: left out, it keeps its default (docs/api.md §4.2).
        webdav: { refuseMacMetadata: true },
      });
      // Zero values stored, defaults read back.
      const stored = JSON.parse(await storedText(srv)) as Settings;
      expect(stored).toMatchObject({ minimumPasswordLength: 0, userHomeBasePath: '', tus: { chunkSize: 0, retryCount: 0 } });
    } finally {
      await putSettings(srv, admin, original);
    }
  });

  it('normalises on save: empty locale/viewMode, null lists, missing event keys', async () => {
    const original = await getSettings(srv, admin);
    try {
      const res = await putSettings(srv, admin, {
        ...original,
        defaults: { ...original.defaults, locale: '', viewMode: '', commands: null },
        rules: null,
        shell: null,
        commands: { before_save: ['x'], after_save: null },
      });
      expect(res.status).toBe(200);
      const s = await getSettings(srv, admin);
      expect(s.defaults).toMatchObject({ locale: 'en', viewMode: 'mosaic', commands: [] });
      expect(s.rules).toEqual([]);
      expect(s.shell).toEqual([]);
      expect(s.commands).toEqual({ ...noCommands(), before_save: ['x'] });
      expect((await putSettings(srv, admin, { ...original, commands: null })).status).toBe(200);
      expect((await getSettings(srv, admin)).commands).toEqual(noCommands());
    } finally {
      await putSettings(srv, admin, original);
    }
  });

  it('ignores unknown fields: enableExec/exec cannot turn execution on (S70)', async () => {
    const original = await getSettings(srv, admin);
    const res = await putSettings(srv, admin, { ...original, enableExec: true, exec: true, disableExec: false, key: 'AAAA', signup: true });
    expect(res.status).toBe(200);
    const s = (await getSettings(srv, admin)) as Settings & Record<string, unknown>;
    expect(s.signup).toBe(true);
    for (const k of ['enableExec', 'exec', 'disableExec', 'key']) expect(s).not.toHaveProperty(k);
    const stored = JSON.parse(await storedText(srv)) as Record<string, unknown>;
    for (const k of ['enableExec', 'exec', 'disableExec', 'key', 'authMethod']) expect(stored).not.toHaveProperty(k);
    expect(srv.deps.config.disableExec).toBe(true);
    // The signing key is unchanged: the admin's token still works.
    expect((await srv.fetch('/api/settings', { token: admin })).status).toBe(200);
    await putSettings(srv, admin, original);
  });

  it('answers 400 for wrong types and bounds, storing nothing (S65)', async () => {
    const original = await getSettings(srv, admin);
    const before = await storedText(srv);
    const bad: [string, unknown][] = [
      ['minimumPasswordLength "twelve"', { ...original, minimumPasswordLength: 'twelve' }],
      ['minimumPasswordLength 12.5', { ...original, minimumPasswordLength: 12.5 }],
      ['minimumPasswordLength -1', { ...original, minimumPasswordLength: -1 }],
      ['minimumPasswordLength 1025', { ...original, minimumPasswordLength: 1025 }],
      ['signup "yes"', { ...original, signup: 'yes' }],
      ['userHomeBasePath 5', { ...original, userHomeBasePath: 5 }],
      ['rules "x"', { ...original, rules: 'x' }],
      ['rule without allow', { ...original, rules: [{ regex: false, path: '/x' }] }],
      ['tus chunkSize -1', { ...original, tus: { chunkSize: -1, retryCount: 5 } }],
      ['tus retryCount "5"', { ...original, tus: { chunkSize: 1, retryCount: '5' } }],
      ['tus retryCount -1', { ...original, tus: { chunkSize: 1, retryCount: -1 } }],
      ['tus incomplete', { ...original, tus: { chunkSize: 1 } }],
      ['defaults.perm partial', { ...original, defaults: { ...original.defaults, perm: { admin: true } } }],
      ['defaults.perm "all"', { ...original, defaults: { ...original.defaults, perm: 'all' } }],
      ['defaults.scope 1', { ...original, defaults: { ...original.defaults, scope: 1 } }],
      ['branding 5', { ...original, branding: 5 }],
      ['shell "sh"', { ...original, shell: 'sh' }],
      ['shell [1]', { ...original, shell: [1] }],
      ['commands list of numbers', { ...original, commands: { before_save: [1] } }],
      ['commands "x"', { ...original, commands: { before_save: 'x' } }],
      ['unknown event', { ...original, commands: { ...original.commands, before_launch: [] } }],
      ['userHomeBasePath above the root', { ...original, userHomeBasePath: '/../outside' }],
      ['defaults.scope above the root', { ...original, defaults: { ...original.defaults, scope: '../..' } }],
      ['lone surrogate', { ...original, branding: { ...original.branding, name: 'x\ud800' } }],
      ['array body', [original]],
      ['string body', 'settings'],
      ['number body', 7],
      ['null body', null],
    ];
    for (const [name, body] of bad) {
      const res = await putSettings(srv, admin, body);
      expect(res.status, name).toBe(400);
      expect(await res.text(), name).toMatch(/^400 Bad Request/);
    }
    for (const raw of ['{', '{"signup":true,}', "{'signup':true}", 'tru']) {
      expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin, body: raw })).status, raw).toBe(400);
    }
    expect((await srv.fetch('/api/settings', { method: 'PUT', token: admin })).status).toBe(400);
    expect(await storedText(srv)).toBe(before);
  });

  it('answers 400 for an invalid rule regex and stores nothing (S39)', async () => {
    const original = await getSettings(srv, admin);
    const before = await storedText(srv);
    for (const raw of ['(?<=/)secret', '(?=a)', '(a', '[z-a]', '\\1', '(?P<x>a)', 'a{1001}', '\\s']) {
      const res = await putSettings(srv, admin, { ...original, rules: [{ regex: false, allow: true, path: '/a', regexp: { raw: '' } }, { regex: true, allow: false, path: '', regexp: { raw } }] });
      expect(res.status, raw).toBe(400);
      expect(await res.text()).toMatch(/^400 Bad Request \(invalid rule: rule 2: /);
    }
    const missing = await putSettings(srv, admin, { ...original, rules: [{ regex: true, allow: false, path: '' }] });
    expect(missing.status).toBe(400);
    expect(await storedText(srv)).toBe(before);
    // Accepted patterns are stored verbatim.
    const rules = [{ regex: true, allow: false, path: '', regexp: { raw: '(?i)\\.(key|pem)$' } }];
    expect((await putSettings(srv, admin, { ...original, rules })).status).toBe(200);
    expect((await getSettings(srv, admin)).rules).toEqual(rules);
    await putSettings(srv, admin, original);
  });

  it('takes effect on the next request: minimumPasswordLength applies to user creation', async () => {
    const original = await getSettings(srv, admin);
    try {
      expect((await putSettings(srv, admin, { ...original, minimumPasswordLength: 20 })).status).toBe(200);
      const res = await srv.fetch('/api/users', {
        method: 'POST',
        token: admin,
        json: { what: 'user', which: [], current_password: ADMIN.password, data: { username: 'min-len', password: 'fifteen-chars-x', perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true } } },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('400 Bad Request (password is too short, minimum length is 20)\n');
    } finally {
      await putSettings(srv, admin, original);
    }
  });

  it('answers 413 for a 10 MB body while /health keeps answering, storing nothing (S80)', async () => {
    const before = await storedText(srv);
    const big = JSON.stringify({ branding: { name: 'x'.repeat(10 * 1024 * 1024) } });
    const [res, health] = await Promise.all([putSettings(srv, admin, big), srv.fetch('/health')]);
    expect(res.status).toBe(413);
    expect(health.status).toBe(200);
    expect((await srv.fetch('/health')).status).toBe(200);
    expect(await storedText(srv)).toBe(before);
  });

  it('needs X-Auth for PUT: the auth cookie alone is 401', async () => {
    const original = await getSettings(srv, admin);
    const res = await srv.fetch('/api/settings', { method: 'PUT', headers: { cookie: `auth=${admin}` }, json: original });
    expect(res.status).toBe(401);
    // GET accepts the cookie (docs/api.md §2.2).
    expect((await srv.fetch('/api/settings', { headers: { cookie: `auth=${admin}` } })).status).toBe(200);
  });
});
