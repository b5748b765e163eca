/**
 * "Test discovery" (docs/api.md §2.14): fetch `<issuer>/.well-known/openid-configuration` once and
 * say whether it is usable. The fetch is bounded: DISCOVERY_TIMEOUT_MS for the whole exchange,
 * DISCOVERY_MAX_BYTES of body (read as a stream, cut off beyond), no redirects followed, https or
 * loopback http only (validate.ts). Admin-only at the route. Never throws: every failure is a
 * reason in the answer, with no server path or stack.
 */
import type { OidcDiscoveryResult } from '@coffer/protocol';
import { BACK_CHANNEL_ENDPOINTS, plainEndpoint, urlProblem } from '@coffer/protocol/oidc-checks';

export const DISCOVERY_TIMEOUT_MS = 5_000;
export const DISCOVERY_MAX_BYTES = 256 * 1024;

const fail = (problem: string, detail = ''): OidcDiscoveryResult => ({ ok: false, authorizationEndpoint: '', problem, detail });

/** The discovery document's URL (OpenID Connect Discovery 1.0, section 4: the issuer's path, then the well-known name). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/** Reads at most `max` bytes of the body; null when it holds more. */
async function boundedText(res: Response, max: number): Promise<string | null> {
  const declared = Number(res.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function testDiscovery(fetchFn: typeof fetch, issuer: string): Promise<OidcDiscoveryResult> {
  const bad = urlProblem(issuer);
  if (bad) return fail('invalid-issuer', bad);
  const signal = AbortSignal.timeout(DISCOVERY_TIMEOUT_MS);
  let text: string | null;
  try {
    const res = await fetchFn(discoveryUrl(issuer), { redirect: 'manual', signal, headers: { accept: 'application/json' } });
    if (res.status !== 200) {
      await res.body?.cancel();
      return fail('status', String(res.status));
    }
    text = await boundedText(res, DISCOVERY_MAX_BYTES);
  } catch (err) {
    if (signal.aborted) return fail('timeout', `${DISCOVERY_TIMEOUT_MS / 1000} s`);
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    return fail('unreachable', typeof code === 'string' ? code : '');
  }
  if (text === null) return fail('too-large', `${DISCOVERY_MAX_BYTES / 1024} KiB`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('not-json');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('not-json');
  const d = doc as Record<string, unknown>;
  // OpenID Connect Discovery 1.0, section 4.3: the issuer in the document must be exactly the one configured (a trailing slash matters).
  if (d.issuer !== issuer) return fail('issuer-mismatch', typeof d.issuer === 'string' ? d.issuer.slice(0, 200) : '');
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    if (typeof d[field] !== 'string' || d[field] === '') return fail('incomplete', field);
  }
  for (const field of BACK_CHANNEL_ENDPOINTS) {
    if (typeof d[field] === 'string' && plainEndpoint(issuer, d[field])) return fail('insecure-endpoint', field);
  }
  return { ok: true, authorizationEndpoint: String(d.authorization_endpoint).slice(0, 2048), problem: '', detail: '' };
}
