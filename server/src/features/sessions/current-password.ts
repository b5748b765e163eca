/**
 * What confirms a change to the caller's own sign-in (S35, as for a new password): a new app
 * password, new recovery codes, the second factor on or off, a new passkey (docs/api.md §2.10,
 * docs/api.md §2.12). The rule — the password of a user who has one, whatever the global auth method; a recent
 * sign-in for one who has none; nothing behind the proxy — is `confirmChange` (docs/oidc.md
 * "Confirming changes"). Password guesses count in the login throttle (S30) like the sign-in form's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequest, Forbidden } from '../../http/errors.js';
import { confirmationFor, confirmChange } from '../signin/methods/confirm.js';
import { CURRENT_PASSWORD_INCORRECT, SIGN_IN_AGAIN } from '../users/service.js';

export function createSignInChecks(app: FastifyInstance) {
  const { loginThrottle, settings, tokens } = app.deps;

  /** A guess checked under the login throttle: 429 when over it; `ok` false counts a failure. */
  async function guarded(req: FastifyRequest, check: () => Promise<boolean>): Promise<boolean> {
    const release = await loginThrottle.begin(req.ip, req.user.username);
    try {
      const ok = await check();
      if (!ok) await loginThrottle.failed(req.ip, req.user.username);
      return ok;
    } finally {
      release();
    }
  }

  /** 400 for a missing or wrong password, 403 when a user without one must sign in again. */
  async function checkCurrentPassword(req: FastifyRequest, given: string | undefined): Promise<void> {
    const auther = await settings.auther();
    const check = () => confirmChange(auther, req.user, req.session, given, tokens.now());
    let answer: Awaited<ReturnType<typeof confirmChange>> = 'ok';
    if (confirmationFor(auther, req.user, req.session) !== 'password') answer = await check();
    else {
      // Only password guesses go through the throttle.
      await guarded(req, async () => {
        answer = await check();
        return answer !== 'wrong-password';
      });
    }
    if (answer === 'wrong-password') throw new BadRequest(CURRENT_PASSWORD_INCORRECT);
    if (answer === 'sign-in-again') throw new Forbidden(SIGN_IN_AGAIN);
  }

  return { guarded, checkCurrentPassword };
}
