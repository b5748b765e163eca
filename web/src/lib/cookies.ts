/**
 * The `auth` cookie (docs/api.md §2.2, S26): the client sets it itself after login and renewal so that
 * browser-initiated GETs (downloads, previews) authenticate; always Path=/ even under a base URL.
 */
export function setAuthCookie(jwt: string): void {
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `auth=${jwt}; Path=/; SameSite=Strict${secure}`;
}

export function clearAuthCookie(): void {
  document.cookie = 'auth=; Path=/; Max-Age=0; SameSite=Strict';
}
