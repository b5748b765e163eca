/**
 * The `redirect` query parameter of /login (docs/client.md §2): only a path inside this app is followed, so a
 * crafted link cannot send a user elsewhere after signing in.
 */
export const DEFAULT_AFTER_LOGIN = '/files/';

export function safeRedirect(raw: string | null | undefined): string {
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\'))
    return DEFAULT_AFTER_LOGIN;
  // Control characters and backslashes have no place in our routes; browsers treat some as slashes.
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f || c === '\\'))
    return DEFAULT_AFTER_LOGIN;
  if (raw === '/login' || raw.startsWith('/login?') || raw.startsWith('/login/')) return DEFAULT_AFTER_LOGIN;
  return raw;
}

/**
 * The /login location that brings the user back to `target` (path + search + hash) afterwards;
 * `signup` opens the screen in sign-up mode.
 */
export function loginLocation(target: string, signup = false): string {
  const params = signup ? ['mode=signup'] : [];
  if (target && target !== '/' && !target.startsWith('/login'))
    params.push(`redirect=${encodeURIComponent(target)}`);
  return params.length ? `/login?${params.join('&')}` : '/login';
}
