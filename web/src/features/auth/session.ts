/**
 * Session start and end (docs/client.md §2 "Route guard", §4 "Auth"): sign-in by the configured auth mode
 * on the first navigation, renewal of a stored token, logout.
 */
import { login, logoutSession, oidcSession, renewToken } from '../../api/auth';
import { config } from '../../config';
import { clearSession, setToken, storedToken } from '../../stores/session';

/**
 * Restores or opens a session before the first screen. No-auth and proxy instances have no login
 * form: POST /api/login signs in by itself. Otherwise a stored, unexpired token is renewed; a
 * refused one is forgotten. Never throws: failing leaves the user signed out.
 */
export async function initSession(): Promise<void> {
  try {
    if (config.NoAuth || !config.LoginPage) {
      setToken(await login('', '', ''));
      return;
    }
    // Back from the OIDC provider (docs/api.md §2.13): the callback left a session to fetch once.
    if (config.OIDC && new URLSearchParams(window.location.search).get('oidc') === 'done') {
      setToken(await oidcSession());
      return;
    }
    const stored = storedToken();
    if (!stored) {
      clearSession();
      return;
    }
    setToken(await renewToken(stored));
  } catch {
    clearSession();
  }
}

/**
 * Logs out (E5 first, then forgets the token). Returns where to go: a reload for no-auth, the
 * configured logout page, or the login screen.
 */
export async function logout(): Promise<{ reload: true } | { href: string } | { route: string }> {
  await logoutSession();
  if (config.NoAuth) return { reload: true };
  if (config.LogoutPage && config.LogoutPage !== '/login') return { href: config.LogoutPage };
  return { route: '/login' };
}
