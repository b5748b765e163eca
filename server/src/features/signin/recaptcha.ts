import type { RecaptchaConfig } from '../settings/repository.js';
import { Forbidden } from '../../http/errors.js';

const VERIFY_TIMEOUT_MS = 10_000;

/** True when the json auther asks for reCAPTCHA (docs/api.md §2.5: a non-empty secret). */
export function recaptchaEnabled(cfg: RecaptchaConfig | null | undefined): cfg is RecaptchaConfig {
  return Boolean(cfg && cfg.secret);
}

/**
 * docs/api.md §2.5: POSTs `secret` and `response` form-encoded to `<host>/recaptcha/api/siteverify`;
 * only HTTP 200 with `{"success": true}` passes. Rejected → Forbidden; unreachable or not JSON →
 * a plain Error (500).
 */
export async function verifyRecaptcha(fetchFn: typeof fetch, cfg: RecaptchaConfig, response: string): Promise<void> {
  const url = `${cfg.host.replace(/\/+$/, '')}/recaptcha/api/siteverify`;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret: cfg.secret, response }).toString(),
      signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
    });
  } catch (err) {
    throw new Error('reCAPTCHA verifier unreachable', { cause: err });
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Forbidden();
  }
  let body: unknown;
  try {
    body = JSON.parse(await res.text());
  } catch (err) {
    throw new Error('reCAPTCHA verifier answered no JSON', { cause: err });
  }
  if (typeof body !== 'object' || body === null || (body as { success?: unknown }).success !== true) throw new Forbidden();
}
