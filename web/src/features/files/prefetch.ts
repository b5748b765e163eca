/**
 * A cold load of a /files link asks for the listing at once, with the token kept from the last
 * visit, instead of after the session, the language and the route's code (issue 9: first rows of a
 * 100,000-entry folder within 1.5 s). The answer is used once, by the first listing shown, and only
 * for the user the session turns out to be; anything else is a normal request.
 */
import { matchRoutes } from 'react-router';
import { answerOf, encodePath } from '../../api/client';
import { readResource } from '../../api/listingStream';
import { streamResource, type ItemsListener, type Resource, type ResourceItem } from '../../api/resources';
import type { EarlyListing } from '../../early';
import { apiUrl, config } from '../../config';
import { decodeToken } from '../../lib/jwt';
import { virtualPathOf } from '../../lib/paths';
import { storedToken, useSession } from '../../stores/session';

interface Prefetch {
  path: string;
  userId: number;
  answer: Promise<Resource>;
  controller: AbortController;
  /** Who hears of the items as they arrive: the listing, once it took the answer. */
  listener: ItemsListener | null;
  /** The items heard of before that. */
  heard: [Resource, readonly ResourceItem[]] | null;
}

let pending: Prefetch | null = null;
/** A page load prefetches at most once: later listings are always fresh. */
let started = false;

// Signing out (a refused renewal included) drops the answer: it must never reach another user.
useSession.subscribe((state) => {
  if (!state.user) discardPrefetch();
});

/**
 * The virtual path a /files route shows, exactly as the router and FilesPage read it (base URL
 * stripped, segments decoded, the splat through virtualPathOf); null for any other route.
 */
export function filesPathOf(pathname: string, baseURL = config.BaseURL): string | null {
  const match = matchRoutes([{ path: 'files/*' }], pathname, baseURL || '/');
  return match?.[0] ? virtualPathOf(match[0].params['*']) : null;
}

function formLogin(): boolean {
  return !config.NoAuth && config.LoginPage;
}

/**
 * Before the session is restored: the /files path this page opens on, when a signed-in listing is
 * to be expected (a stored, unexpired token with form login; no-auth and proxy sign in by
 * themselves), else null. With a stored token its listing is requested right away.
 */
export function prefetchBeforeSession(pathname = window.location.pathname): string | null {
  const early = window.__cofferEarlyListing ?? null;
  window.__cofferEarlyListing = null; // an early script arriving after this sends nothing
  const path = filesPathOf(pathname);
  const stored = path !== null && formLogin() ? storedToken() : null;
  if (path !== null && stored) prefetchResource(path, stored, early);
  else early?.controller.abort();
  if (path === null) return null;
  return !formLogin() || stored ? path : null;
}

/** After the session started (no-auth and proxy have a token only now): the listing, if not asked yet. */
export function prefetchAfterSession(path: string | null): void {
  const token = useSession.getState().token;
  if (path !== null && token) prefetchResource(path, token);
}

/**
 * GET of `path` with `token`; a 401 here does not end the session (the real request will). The GET
 * early.ts already sent is taken when it asked for the same URL with the same token.
 */
export function prefetchResource(path: string, token: string, early: EarlyListing | null = null): void {
  const url = apiUrl(`/resources${encodePath(path)}`);
  const sent = early && early.url === url && early.token === token ? early : null;
  if (early && !sent) early.controller.abort();
  if (started) {
    sent?.controller.abort();
    return;
  }
  let userId: number;
  try {
    userId = decodeToken(token).user.id;
  } catch {
    sent?.controller.abort();
    return;
  }
  started = true;
  const controller = sent?.controller ?? new AbortController();
  const heard: ItemsListener = (head, items) => {
    prefetch.heard = [head, items];
    prefetch.listener?.(head, items);
  };
  const answer = sent
    ? answerOf(sent.response, token).then((res) => readResource<Resource>(res, heard))
    : streamResource(path, heard, controller.signal, token);
  const prefetch: Prefetch = { path, userId, answer, controller, listener: null, heard: null };
  // Unused or failed answers are dropped silently: the listing asks again.
  answer.catch(() => undefined);
  pending = prefetch;
}

/** Forgets the prefetched answer (and stops its request when it is still running). */
export function discardPrefetch(): void {
  pending?.controller.abort();
  pending = null;
}

/**
 * The listing's request: the prefetched answer when this is the first listing asked for since the
 * page loaded, for the same path and the session's user; otherwise — or when the prefetch failed
 * in any way (401, no connection, aborted) — a normal GET, whose 401 ends the session as usual.
 * `onItems` hears of a folder's items as they arrive (streamResource).
 */
export function loadResource(path: string, signal: AbortSignal, onItems: ItemsListener = () => undefined): Promise<Resource> {
  const prefetch = pending;
  pending = null;
  started = true;
  if (!prefetch || prefetch.path !== path || prefetch.userId !== useSession.getState().user?.id) {
    prefetch?.controller.abort();
    return streamResource(path, onItems, signal);
  }
  signal.addEventListener('abort', () => prefetch.controller.abort(), { once: true });
  prefetch.listener = onItems;
  if (prefetch.heard) onItems(...prefetch.heard);
  return prefetch.answer.catch(() => streamResource(path, onItems, signal));
}

/** Tests: a fresh page load. */
export function resetPrefetch(): void {
  discardPrefetch();
  started = false;
}
