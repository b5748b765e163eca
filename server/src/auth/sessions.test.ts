// The token service's per-request check (S20–S22): the signature of a token seen before is not
// checked again, but its expiry, its session and its user are, on every request.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../db/index.js';
import { defaultSettings, defaultUserDefaults } from '../features/settings/defaults.js';
import { createSettingsRepository } from '../features/settings/repository.js';
import { createUserRepository, type UserRecord } from '../features/users/repository.js';
import { createTokenService } from './tokens.js';

describe('verifyWithUser', () => {
  let dir: string;
  let db: Db;
  let user: UserRecord;
  let clock = 1_800_000_000;
  const key = new Uint8Array(64).fill(3);
  const service = () => createTokenService({ db, key, lifetimeSeconds: 60, now: () => clock });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-sessions-unit-'));
    db = await openDb(path.join(dir, 'db.sqlite'));
    await createSettingsRepository(db).saveSettings(defaultSettings());
    const d = defaultUserDefaults();
    user = await createUserRepository(db).insert({
      username: 'u', passwordHash: 'x', scope: '/', locale: 'en', lockPassword: false, viewMode: 'list', singleClick: false,
      redirectAfterCopyMove: true, perm: d.perm, commands: [], sorting: d.sorting, rules: [], hideDotfiles: false,
      dateFormat: false, aceEditorTheme: '',
    });
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the session, the user and the stored settings text in one answer', async () => {
    const tokens = service();
    const token = await tokens.issue(user);
    const found = await tokens.verifyWithUser(token);
    expect(found?.user.id).toBe(user.id);
    expect(found?.session).toMatchObject({ userId: user.id, iat: clock, exp: clock + 60 });
    expect(JSON.parse(found!.settingsText!)).toMatchObject({ rules: [] });
  });

  it('refuses a token it verified before once its session is revoked, at the very next check', async () => {
    const tokens = service();
    const token = await tokens.issue(user);
    expect(await tokens.verifyWithUser(token)).not.toBeNull();
    const found = await tokens.verifyWithUser(token);
    await tokens.revoke(found!.session.jti);
    expect(await tokens.verifyWithUser(token)).toBeNull();
  });

  it('refuses a token it verified before once it expires', async () => {
    const tokens = service();
    const token = await tokens.issue(user);
    expect(await tokens.verifyWithUser(token)).not.toBeNull();
    clock += 59;
    expect(await tokens.verifyWithUser(token)).not.toBeNull();
    clock += 1; // exp == now is expired
    expect(await tokens.verifyWithUser(token)).toBeNull();
  });

  it('refuses a token it verified before once its user is deleted', async () => {
    const users = createUserRepository(db);
    const d = defaultUserDefaults();
    const other = await users.insert({ ...user, username: 'gone', perm: d.perm });
    const tokens = service();
    const token = await tokens.issue(other);
    expect(await tokens.verifyWithUser(token)).not.toBeNull();
    await users.delete(other.id);
    expect(await tokens.verifyWithUser(token)).toBeNull();
  });

  it('still refuses a changed token after the genuine one was verified', async () => {
    const tokens = service();
    const token = await tokens.issue(user);
    expect(await tokens.verifyWithUser(token)).not.toBeNull();
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1)!;
    expect(await tokens.verifyWithUser(`${h}.${p}.${flipped}`)).toBeNull();
    expect(await tokens.verifyWithUser(`${h}.${p}x.${s}`)).toBeNull();
  });

  it('keeps, past its expiry, a session that created an unfinished upload, and only until the upload ends', async () => {
    const tokens = service();
    const uploading = await tokens.issue(user);
    const idle = await tokens.issue(user);
    const { session } = (await tokens.verifyWithUser(uploading))!;
    await db.kysely
      .insertInto('uploads')
      .values({
        id: 'u1', target_key: 'k1', target: '/t/a.bin', virtual_path: '/a.bin', user_id: user.id, session_jti: session.jti,
        length: 10, upload_offset: 0, override: 0, created_at: 0, updated_at: 0, writer: null,
      })
      .execute();
    clock += 61;
    await tokens.sweep();
    expect(await tokens.verifyWithUser(uploading)).toBeNull(); // expired for every other purpose
    expect((await tokens.verifyWithUser(uploading, { allowExpired: true }))?.session.jti).toBe(session.jti);
    expect(await tokens.verifyWithUser(idle, { allowExpired: true })).toBeNull();
    await db.kysely.deleteFrom('uploads').where('id', '=', 'u1').execute();
    await tokens.sweep();
    expect(await tokens.verifyWithUser(uploading, { allowExpired: true })).toBeNull();
  });

  it('a logout also ends a renewal committed while its first DELETE ran (S24)', async () => {
    // PostgreSQL's interleaving, made deterministic: a renewal's token lands just after the first
    // DELETE statement of the logout (its snapshot could not see it), with the old token still
    // visible to the renewal's own check.
    const tokens = service();
    const token = await tokens.issue(user);
    const session = (await tokens.verify(token))!;
    let landed = false;
    const plugin: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult(args) {
        if (!landed && 'numAffectedRows' in args.result && args.result.numAffectedRows !== undefined) {
          landed = true;
          // better-sqlite3 directly: Kysely's one SQLite connection is busy with the DELETE.
          db.sqlite!
            .prepare(
              `INSERT INTO sessions (jti, user_id, issued_at, expires_at, family, created_at, last_seen, user_agent, address)
               VALUES ('renewed-mid-logout', ?, ?, ?, ?, ?, ?, '', '')`,
            )
            .run(user.id, clock, clock + 60, session.family, clock, clock);
        }
        return Promise.resolve(args.result);
      },
    };
    const racing = createTokenService({ db: { ...db, kysely: db.kysely.withPlugin(plugin) }, key, lifetimeSeconds: 60, now: () => clock });
    expect(await racing.revokeFamily(user.id, session.family)).toBe(true);
    expect(landed).toBe(true);
    const left = await db.kysely.selectFrom('sessions').select('jti').where('family', '=', session.family).execute();
    expect(left).toEqual([]);
  });
});
