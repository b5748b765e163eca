/**
 * The page's first script, with nothing to import, so it runs as soon as the page is parsed —
 * before the app's first bundle and its chunks have arrived and run (~0.3 s sooner on a cold
 * load). On a /files link with a stored session and form login it sends the listing's GET at
 * once (issue 9: the first rows of a 100,000-entry folder within 1.5 s). The app's prefetch
 * (features/files/prefetch.ts) takes the answer only for exactly the URL and the token it would
 * have used itself, and drops it otherwise.
 */
export interface EarlyListing {
  url: string;
  token: string;
  response: Promise<Response>;
  controller: AbortController;
}

declare global {
  interface Window {
    /** Null once the app has looked (this script then came too late and sends nothing). */
    __cofferEarlyListing?: EarlyListing | null;
  }
}

/** Sends the listing's GET when the page is a /files link with a stored session (see above). */
export function sendEarlyListing(): void {
  if (window.__cofferEarlyListing === null) return;
  const cfg = window.FileBrowser ?? {};
  if (cfg.NoAuth || cfg.LoginPage === false) return;
  const base = (cfg.BaseURL ?? '').replace(/\/+$/, '');
  const { pathname } = window.location;
  const files = `${base}/files`;
  if (!pathname.startsWith(files)) return;
  const rest = pathname.slice(files.length);
  if (rest !== '' && !rest.startsWith('/')) return;
  let token: string | null = null;
  try {
    token = localStorage.getItem('jwt');
  } catch {
    return;
  }
  if (!token) return;
  const url = `${base}/api/resources${rest || '/'}`;
  const controller = new AbortController();
  const response = fetch(url, { headers: { 'X-Auth': token }, credentials: 'same-origin', signal: controller.signal });
  // Unused answers are dropped; the app reports its own failures.
  response.catch(() => undefined);
  window.__cofferEarlyListing = { url, token, response, controller };
}

sendEarlyListing();
