import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../auth/passwords.js';
import { createAppPasswordService } from '../../auth/app-passwords.js';
import { createLoginThrottle } from '../../auth/throttle.js';
import { createTokenService, type Session } from '../../auth/tokens.js';
import { openDb, type Db } from '../../db/index.js';
import { HttpError } from '../../http/errors.js';
import { defaultUserDefaults, defaultSettings } from '../settings/defaults.js';
import { createSettingsRepository, defaultAuther } from '../settings/repository.js';
import { presentUser } from './present.js';
import { createUserRepository, type UserRecord } from './repository.js';
import { createUsersService, normaliseScope, type Actor } from './service.js';

/** Captures log calls so the tests can read what E8 writes. */
function recordingLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as FastifyBaseLogger };
}

describe('normaliseScope (S9)', () => {
  it('makes scopes absolute and clean', () => {
    expect(normaliseScope('.')).toBe('/');
    expect(normaliseScope('')).toBe('/');
    expect(normaliseScope(' a//b/./c/ ')).toBe('/a/b/c');
    expect(normaliseScope('/a/b/../c')).toBe('/a/c');
    expect(normaliseScope('back\\slash')).toBe('/back\\slash');
  });
  it('answers 400 (not 403) for a scope that climbs above the root, and for control characters', () => {
    for (const s of ['..', '/../etc', 'a/../../b', 'x\u0000y']) {
      let err: unknown;
      try {
        normaliseScope(s);
      } catch (e) {
        err = e;
      }
      expect(err, s).toBeInstanceOf(HttpError);
      expect((err as HttpError).status, s).toBe(400);
    }
  });
});

describe('presentUser', () => {
  const record: UserRecord = {
    id: 3, username: 'alice', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$abc$def', scope: '/users/alice', locale: 'en', lockPassword: false,
    viewMode: 'list', singleClick: false, redirectAfterCopyMove: true,
    perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true },
    commands: [], sorting: { by: 'name', asc: false }, rules: [], hideDotfiles: false, dateFormat: false, aceEditorTheme: '', updatedAt: 1,
  };
  it('never carries the hash; scope only for admins', () => {
    const forAdmin = presentUser(record, { perm: { admin: true } });
    expect(JSON.stringify(forAdmin)).not.toContain('argon2');
    expect(forAdmin).toMatchObject({ password: '', scope: '/users/alice' });
    expect(forAdmin).not.toHaveProperty('passwordHash');
    expect(forAdmin).not.toHaveProperty('updatedAt');
    expect(presentUser(record, { perm: { admin: false } }).scope).toBe('');
  });
});

describe('security log lines (E8)', () => {
  let dir: string;
  let db: Db;
  let admin: UserRecord;
  let session: Session;
  const ADMIN_PASSWORD = 'admin-password-unit';
  const NEW_PASSWORD = 'never-in-any-log-line';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-users-unit-'));
    db = await openDb(path.join(dir, 'db.sqlite'));
    const users = createUserRepository(db);
    const settings = createSettingsRepository(db);
    await settings.saveSettings(defaultSettings());
    await settings.saveAuther(defaultAuther('json'));
    const d = defaultUserDefaults();
    admin = await users.insert({
      username: 'root-admin', passwordHash: await hashPassword(ADMIN_PASSWORD), scope: '/', locale: 'en', lockPassword: false, viewMode: 'list',
      singleClick: false, redirectAfterCopyMove: true, perm: { ...d.perm, admin: true }, commands: [], sorting: d.sorting, rules: [],
      hideDotfiles: false, dateFormat: false, aceEditorTheme: '',
    });
    session = { jti: 'unit-session', userId: admin.id, iat: 0, exp: 0, family: 'unit-session', lastSeen: 0 };
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  function service() {
    const tokens = createTokenService({ db, key: new Uint8Array(64), lifetimeSeconds: 60 });
    const loginThrottle = createLoginThrottle();
    const appPasswords = createAppPasswordService({ db, loginThrottle });
    return createUsersService({ users: createUserRepository(db), settings: createSettingsRepository(db), tokens, appPasswords, serverRoot: path.join(dir, 'root'), loginThrottle });
  }

  it('logs user creation, changes (field names only) and deletion with actor and target, never a password', async () => {
    const { lines, log } = recordingLogger();
    const actor: Actor = { user: admin, session, address: '127.0.0.1', log };
    const users = service();
    await mkdir(path.join(dir, 'root'), { recursive: true });
    const created = await users.create(actor, {
      what: 'user', which: [], current_password: ADMIN_PASSWORD,
      data: { username: 'bob', password: 'first-password-123', scope: '/bob', perm: { ...defaultUserDefaults().perm } },
    });
    await users.update(actor, created.id, {
      what: 'user', which: ['password', 'locale'], current_password: ADMIN_PASSWORD,
      data: { id: created.id, password: NEW_PASSWORD, locale: 'de' },
    });
    await users.remove(actor, created.id, { current_password: ADMIN_PASSWORD });

    expect(lines.map((l) => l.msg)).toEqual(['user created', 'user updated', 'user deleted']);
    for (const l of lines) expect(l.obj).toMatchObject({ actor: admin.id, target: created.id });
    expect(lines[1]!.obj.fields).toEqual(['password', 'locale']);
    const all = JSON.stringify(lines);
    expect(all).not.toContain(NEW_PASSWORD);
    expect(all).not.toContain('first-password-123');
    expect(all).not.toContain(ADMIN_PASSWORD);
    expect(all).not.toContain('argon2');
  });
});
