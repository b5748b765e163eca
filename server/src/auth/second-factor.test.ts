// TOTP's window and replay rule (docs/api.md §2.12) on a fake clock: codes of the step before and
// after are good, two steps away are not, and a code is good once — as is any older one after it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../db/index.js';
import { createSecondFactorService, normaliseRecoveryCode } from './second-factor.js';

const code = (secret: string, at: number) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: at * 1000,
  });

describe('second factor', () => {
  let dir: string;
  let db: Db;
  let clock = 1_800_000_010; // 10 s into a step
  const service = () => createSecondFactorService({ db, now: () => clock });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-totp-unit-'));
    db = await openDb(path.join(dir, 'db.sqlite'));
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('accepts the steps next to now, not two away, each once, and nothing older than the last', async () => {
    const s = service();
    const { secret } = (await s.begin(1, 'u'))!;
    expect(await s.confirm(1, code(secret, clock - 60))).toBeNull();
    expect(await s.confirm(1, code(secret, clock))).toHaveLength(10);
    // Enrolment took the current step: it is spent.
    expect(await s.verify(1, code(secret, clock))).toBe('wrong');
    clock += 30;
    expect(await s.verify(1, code(secret, clock + 60))).toBe('wrong');
    expect(await s.verify(1, code(secret, clock + 30))).toBe('ok');
    expect(await s.verify(1, code(secret, clock + 30))).toBe('wrong');
    expect(await s.verify(1, code(secret, clock))).toBe('wrong');
    clock += 60;
    expect(await s.verify(1, code(secret, clock - 30))).toBe('wrong'); // the step already used
    expect(await s.verify(1, code(secret, clock))).toBe('ok');
    expect(await s.verify(1, 'abcdef')).toBe('wrong');
    expect(await s.verify(1, '')).toBe('wrong');
  });

  it('spends a recovery code once; new codes replace the old; remove forgets all', async () => {
    const s = service();
    const { secret } = (await s.begin(2, 'v'))!;
    const codes = (await s.confirm(2, code(secret, clock)))!;
    expect(normaliseRecoveryCode(' ab-cd ef ')).toBe('ABCDEF');
    expect(await s.verify(2, codes[0]!.toLowerCase())).toBe('ok');
    expect(await s.verify(2, codes[0]!)).toBe('wrong');
    expect(await s.verify(1, codes[1]!)).toBe('wrong'); // another user's
    const fresh = await s.regenerateRecoveryCodes(2);
    expect(await s.verify(2, codes[1]!)).toBe('wrong');
    expect(await s.status(2)).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 0 });
    expect(await s.verify(2, fresh[0]!)).toBe('ok');
    expect(await s.remove(2)).toBe(true);
    expect(await s.status(2)).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0 });
    expect(await s.verify(2, fresh[1]!)).toBe('wrong');
  });
});
