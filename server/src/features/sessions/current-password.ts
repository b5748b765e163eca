/**
 * The caller's own password confirming a change to its sign-in (S35, as for a new password): a new
 * app password, new recovery codes, turning the second factor off (docs/api.md §2.10, §2.12).
 * Guesses count in the login throttle (S30) like those of the sign-in form.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequest } from '../../http/errors.js';
import { confirmsOwnPassword } from '../signin/methods/confirm.js';
import { CURRENT_PASSWORD_INCORRECT } from '../users/service.js';

export function createSignInChecks(app: FastifyInstance) {
  const { loginThrottle, settings } = app.deps;

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

  /**
   * With the json and hook methods the caller's own password confirms the change: 400 when wrong
   * or missing (proxy and noauth have no password to ask).
   */
  async function checkCurrentPassword(req: FastifyRequest, given: string | undefined): Promise<void> {
    const auther = await settings.auther();
    if (auther.method !== 'json' && auther.method !== 'hook') return;
    const ok = await guarded(req, async () => (await confirmsOwnPassword(auther, req.user, given)) === true);
    if (!ok) throw new BadRequest(CURRENT_PASSWORD_INCORRECT);
  }

  return { guarded, checkCurrentPassword };
}
