/** Two-factor sign-in with TOTP and recovery codes (docs/api.md §2.12), over real HTTP. */
import type { RecoveryCodes, SecondFactorStatus, TotpEnrolment } from '@coffer/protocol';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { ADMIN, useServer, type TestServer } from './harness.js';

/** The code an authenticator app shows for `secret` at `at` (seconds; now by default). */
function codeAt(secret: string, at = Date.now() / 1000): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: at * 1000,
  });
}

async function login(
  srv: TestServer,
  username: string,
  password: string,
  otp?: string,
  from = '198.51.100.1',
) {
  return srv.fetch('/api/login', {
    method: 'POST',
    headers: { 'X-Forwarded-For': from },
    json: { username, password, ...(otp === undefined ? {} : { otp }) },
  });
}

/** A user with TOTP on: its secret, recovery codes and the session that enrolled. */
async function enrolled(srv: TestServer) {
  const u = await srv.createUser();
  const token = await srv.login(u.username, u.password);
  const started = await srv.fetch('/api/second-factor/totp', { method: 'POST', token });
  expect(started.status).toBe(200);
  const { secret, uri } = (await started.json()) as TotpEnrolment;
  expect(uri).toMatch(/^otpauth:\/\/totp\/Coffer:/);
  expect(uri).toContain(`secret=${secret}`);
  const confirmed = await srv.fetch('/api/second-factor/totp/confirm', {
    method: 'POST',
    token,
    json: { code: codeAt(secret), current_password: u.password },
  });
  expect(confirmed.status).toBe(200);
  const { recoveryCodes } = (await confirmed.json()) as RecoveryCodes;
  return { ...u, token, secret, recoveryCodes };
}

describe('two-factor sign-in', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'] });

  it('enrols with a code from the secret: ten recovery codes once, other sessions ended, this one kept', async () => {
    const u = await srv.createUser();
    const other = await srv.login(u.username, u.password);
    const token = await srv.login(u.username, u.password);
    const { secret } = (await (
      await srv.fetch('/api/second-factor/totp', { method: 'POST', token })
    ).json()) as TotpEnrolment;
    // Not on until confirmed: the password alone still signs in.
    expect((await login(srv, u.username, u.password)).status).toBe(200);
    const wrong = String((Number(codeAt(secret)) + 1) % 1_000_000).padStart(6, '0');
    expect(
      (
        await srv.fetch('/api/second-factor/totp/confirm', {
          method: 'POST',
          token,
          json: { code: wrong, current_password: u.password },
        })
      ).status,
    ).toBe(403);
    // A stolen session cannot put its own secret on the account (and end the owner's sessions).
    for (const current_password of [undefined, 'not-the-password']) {
      const res = await srv.fetch('/api/second-factor/totp/confirm', {
        method: 'POST',
        token,
        json: { code: codeAt(secret), current_password },
      });
      expect(res.status, String(current_password)).toBe(400);
    }
    expect((await srv.fetch('/api/sessions', { token: other })).status).toBe(200);
    const res = await srv.fetch('/api/second-factor/totp/confirm', {
      method: 'POST',
      token,
      json: { code: codeAt(secret), current_password: u.password },
    });
    expect(res.status).toBe(200);
    const { recoveryCodes } = (await res.json()) as RecoveryCodes;
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    // Stored as digests only.
    const stored = JSON.stringify(
      await srv.deps.db.kysely.selectFrom('recovery_codes').selectAll().execute(),
    );
    for (const c of recoveryCodes) expect(stored).not.toContain(c.replace(/-/g, ''));
    expect((await srv.fetch('/api/sessions', { token: other })).status).toBe(401);
    const status = (await (await srv.fetch('/api/second-factor', { token })).json()) as SecondFactorStatus;
    expect(status).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 0, required: false });
    // A second enrolment is refused while one is on.
    expect((await srv.fetch('/api/second-factor/totp', { method: 'POST', token })).status).toBe(409);
  });

  it('asks for the code after the password, accepts it once, and refuses a wrong or replayed one', async () => {
    const u = await enrolled(srv);
    const first = await login(srv, u.username, u.password);
    expect(first.status).toBe(401);
    expect(first.headers.get('x-second-factor')).toBe('totp');
    // A wrong password says nothing about a second factor.
    const bad = await login(srv, u.username, 'not-the-password');
    expect(bad.status).toBe(403);
    expect(bad.headers.get('x-second-factor')).toBeNull();
    expect(
      (await login(srv, u.username, 'not-the-password', codeAt(u.secret, Date.now() / 1000 + 30))).status,
    ).toBe(403);
    expect((await login(srv, u.username, u.password, '000000')).status).toBe(403);
    // The code of the next step (accepted within the window), once.
    const next = codeAt(u.secret, Date.now() / 1000 + 30);
    expect((await login(srv, u.username, u.password, next)).status).toBe(200);
    expect((await login(srv, u.username, u.password, next)).status).toBe(403);
    // An older code (the current step, now behind the accepted one) is refused too.
    expect((await login(srv, u.username, u.password, codeAt(u.secret))).status).toBe(403);
  });

  it('takes a recovery code once, in any case and spacing', async () => {
    const u = await enrolled(srv);
    const code = u.recoveryCodes[3]!;
    const typed = ` ${code.toLowerCase().replace(/-/g, ' ')} `;
    expect((await login(srv, u.username, u.password, typed)).status).toBe(200);
    expect((await login(srv, u.username, u.password, code)).status).toBe(403);
    const status = (await (
      await srv.fetch('/api/second-factor', { token: u.token })
    ).json()) as SecondFactorStatus;
    expect(status.recoveryCodesLeft).toBe(9);
    // A recovery code is no password.
    expect((await login(srv, u.username, code)).status).toBe(403);
  });

  it('throttles guessed codes from one address (429) while the real user signs in from another', async () => {
    const u = await enrolled(srv);
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) {
      status = (await login(srv, u.username, u.password, String(100000 + i), '203.0.113.9')).status;
      expect([403, 429]).toContain(status);
    }
    expect(status).toBe(429);
    // The right code from the guessing address is refused too.
    expect(
      (await login(srv, u.username, u.password, codeAt(u.secret, Date.now() / 1000 + 30), '203.0.113.9'))
        .status,
    ).toBe(429);
    expect(
      (await login(srv, u.username, u.password, codeAt(u.secret, Date.now() / 1000 + 30), '192.0.2.44'))
        .status,
    ).toBe(200);
  });

  it('stops code guesses spread over many addresses: the password is known, so the user is the limit', async () => {
    const u = await enrolled(srv);
    // One wrong code from each of many addresses (each stays under its own limit).
    for (let i = 0; i < 22; i++) {
      const res = await login(srv, u.username, u.password, String(200000 + i), `2001:db8:${i.toString(16)}::1`);
      expect([403, 429]).toContain(res.status);
    }
    // A fresh address with the right code is refused until the window passes.
    const fresh = await login(srv, u.username, u.password, codeAt(u.secret, Date.now() / 1000 + 30), '2001:db8:ffff::1');
    expect(fresh.status).toBe(429);
  });

  it('turns off with the current password (ending other sessions and app passwords); new recovery codes replace the old', async () => {
    const u = await enrolled(srv);
    const other = (await (await login(srv, u.username, u.password, u.recoveryCodes[0])).text()).trim();
    const app = (await srv.deps.appPasswords.create(u.id, { name: 'dav', readOnly: false, expiresAt: 0 }))!;
    expect((await srv.fetch('/api/resources/', { headers: { 'X-Auth': app.secret } })).status).toBe(200);
    const renewed = await srv.fetch('/api/second-factor/recovery-codes', {
      method: 'POST',
      token: u.token,
      json: { current_password: u.password },
    });
    expect(renewed.status).toBe(200);
    const { recoveryCodes } = (await renewed.json()) as RecoveryCodes;
    expect((await login(srv, u.username, u.password, u.recoveryCodes[1])).status).toBe(403);
    expect((await login(srv, u.username, u.password, recoveryCodes[0])).status).toBe(200);
    expect(
      (
        await srv.fetch('/api/second-factor', {
          method: 'DELETE',
          token: u.token,
          json: { current_password: 'wrong' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await srv.fetch('/api/second-factor', {
          method: 'DELETE',
          token: u.token,
          json: { current_password: u.password },
        })
      ).status,
    ).toBe(204);
    expect((await srv.fetch('/api/sessions', { token: other })).status).toBe(401);
    expect((await srv.fetch('/api/resources/', { headers: { 'X-Auth': app.secret } })).status).toBe(401);
    expect((await srv.fetch('/api/sessions', { token: u.token })).status).toBe(200);
    expect((await login(srv, u.username, u.password)).status).toBe(200);
  });

  it('an admin resets a user’s second factor and ends their sessions and app passwords; others get 403', async () => {
    const u = await enrolled(srv);
    const app = (await srv.deps.appPasswords.create(u.id, { name: 'dav', readOnly: false, expiresAt: 0 }))!;
    const admin = await srv.login(ADMIN.username, ADMIN.password);
    expect(
      (await srv.fetch(`/api/users/${u.id}/second-factor`, { method: 'DELETE', token: u.token })).status,
    ).toBe(403);
    expect(
      (await srv.fetch('/api/users/99999/second-factor', { method: 'DELETE', token: admin })).status,
    ).toBe(404);
    expect(
      (await srv.fetch(`/api/users/${u.id}/second-factor`, { method: 'DELETE', token: admin })).status,
    ).toBe(204);
    expect((await srv.fetch('/api/sessions', { token: u.token })).status).toBe(401);
    expect((await srv.fetch('/api/resources/', { headers: { 'X-Auth': app.secret } })).status).toBe(401);
    expect((await login(srv, u.username, u.password)).status).toBe(200);
  });

  it('app passwords cannot change the second factor; WebDAV users with one use app passwords', async () => {
    const u = await enrolled(srv);
    const created = await srv.fetch('/api/app-passwords', {
      method: 'POST',
      token: u.token,
      json: { name: 'dav', readOnly: false, expiresInDays: 0, current_password: u.password },
    });
    const { secret } = (await created.json()) as { secret: string };
    const h = { 'X-Auth': secret };
    expect((await srv.fetch('/api/second-factor', { headers: h })).status).toBe(403);
    expect((await srv.fetch('/api/second-factor', { method: 'DELETE', headers: h, json: {} })).status).toBe(
      403,
    );
    expect((await srv.deps.appPasswords.verifyBasic(u.username, secret, '192.0.2.5'))?.user.id).toBe(u.id);
    // Over WebDAV the account password alone is no way around the second factor.
    const dav = (password: string) =>
      fetch(`${srv.url}/dav/`, {
        method: 'PROPFIND',
        headers: {
          Depth: '0',
          Authorization: `Basic ${Buffer.from(`${u.username}:${password}`).toString('base64')}`,
        },
      });
    expect((await dav(u.password)).status).toBe(401);
    expect((await dav(secret)).status).toBe(207);
  });

  it('answers 400 for a code that is no string', async () => {
    const u = await srv.createUser();
    expect(
      (
        await srv.fetch('/api/login', {
          method: 'POST',
          json: { username: u.username, password: u.password, otp: 123456 },
        })
      ).status,
    ).toBe(400);
  });
});

describe('--require-second-factor admins', () => {
  const srv = useServer({ trustedProxies: ['127.0.0.1'], requireSecondFactor: 'admins' });

  it('gives an admin without one a session that can only set it up; then everything opens', async () => {
    const token = await srv.login(ADMIN.username, ADMIN.password);
    const refused = await srv.fetch('/api/resources/', { token });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-second-factor')).toBe('enrol');
    expect((await srv.fetch('/api/users', { token })).status).toBe(403);
    expect(
      (
        await srv.fetch('/api/app-passwords', {
          method: 'POST',
          token,
          json: { name: 'x', readOnly: false, expiresInDays: 0 },
        })
      ).status,
    ).toBe(403);
    const status = (await (await srv.fetch('/api/second-factor', { token })).json()) as SecondFactorStatus;
    expect(status).toEqual({ totp: false, recoveryCodesLeft: 0, passkeys: 0, required: true });
    // WebDAV with the account password is refused until then.
    const dav = await fetch(`${srv.url}/dav/`, {
      method: 'PROPFIND',
      headers: {
        Depth: '0',
        Authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`,
      },
    });
    expect(dav.status).toBe(401);
    const { secret } = (await (
      await srv.fetch('/api/second-factor/totp', { method: 'POST', token })
    ).json()) as TotpEnrolment;
    expect(
      (
        await srv.fetch('/api/second-factor/totp/confirm', {
          method: 'POST',
          token,
          json: { code: codeAt(secret), current_password: ADMIN.password },
        })
      ).status,
    ).toBe(200);
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    // It cannot be turned off while required; an admin's reset still can.
    expect(
      (
        await srv.fetch('/api/second-factor', {
          method: 'DELETE',
          token,
          json: { current_password: ADMIN.password },
        })
      ).status,
    ).toBe(403);
    // Signing in now takes the code.
    expect((await login(srv, ADMIN.username, ADMIN.password)).status).toBe(401);
    expect(
      (await login(srv, ADMIN.username, ADMIN.password, codeAt(secret, Date.now() / 1000 + 30))).status,
    ).toBe(200);
  });

  it('leaves users who are not admins alone', async () => {
    const u = await srv.createUser();
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(200);
    const status = (await (await srv.fetch('/api/second-factor', { token })).json()) as SecondFactorStatus;
    expect(status.required).toBe(false);
  });
});

describe('--require-second-factor all', () => {
  const srv = useServer({ requireSecondFactor: 'all' });

  it('refuses the app passwords of a user without a second factor', async () => {
    const u = await srv.createUser();
    const { secret } = await srv.deps.appPasswords
      .create(u.id, { name: 'old', readOnly: false, expiresAt: 0 })
      .then((c) => c!);
    expect((await srv.fetch('/api/resources/', { headers: { 'X-Auth': secret } })).status).toBe(403);
    // WebDAV with the app password too (it does not pass through the API's authenticate).
    const dav = await fetch(`${srv.url}/dav/`, {
      method: 'PROPFIND',
      headers: { Depth: '0', Authorization: `Basic ${Buffer.from(`${u.username}:${secret}`).toString('base64')}` },
    });
    expect(dav.status).toBe(403);
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/resources/', { token })).status).toBe(403);
  });
});
