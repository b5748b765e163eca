/**
 * Every guessing limit in one place: login (S30), signup (S33) and share passwords (S45).
 *
 * - `ThrottleStore` counts events per key in a sliding window. The in-memory store serves a single
 *   instance; a shared store (Redis) implements the same interface when several instances run.
 * - `createGuessThrottle` is the one policy behind login and share passwords: limits per client
 *   address, per target (a user name, a share) and per address-and-target pair.
 * - `createRequestThrottle` counts every request of an address (signup).
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { TooManyRequests } from '../http/errors.js';

export interface ThrottleState {
  /** Events of this key inside the window. */
  count: number;
  /** Milliseconds until the count drops below `limit` (0 when already below). */
  retryAfterMs: number;
}

export interface ThrottleStore {
  /** Records one event for `key` now. */
  hit(key: string): Promise<void>;
  /** The key's events inside the window, and when it falls below `limit`. */
  check(key: string, limit: number): Promise<ThrottleState>;
  /**
   * `check`, then `hit` only when the key is below `limit`, as one step: of a parallel burst no
   * more than `limit` get through, however many instances ask (a check and a hit apart would let
   * the whole burst see the count before any of it was recorded). Answers the state before.
   */
  take(key: string, limit: number): Promise<ThrottleState>;
}

export interface MemoryStoreOptions {
  windowMs: number;
  now?: () => number;
  /** Keys kept at most; the oldest key is forgotten beyond (bounded memory under a flood). */
  maxKeys?: number;
  /** Events kept per key; must be ≥ every limit asked of `check`. */
  maxPerKey?: number;
}

export function createMemoryThrottleStore(opts: MemoryStoreOptions): ThrottleStore {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  const maxPerKey = opts.maxPerKey ?? 100;
  const log = new Map<string, number[]>();

  function live(key: string, t: number): number[] {
    const events = log.get(key);
    if (!events) return [];
    const from = t - opts.windowMs;
    let i = 0;
    while (i < events.length && events[i]! <= from) i++;
    if (i > 0) events.splice(0, i);
    if (events.length === 0) log.delete(key);
    return events;
  }

  let hitsSinceSweep = 0;
  /** Drops expired keys now and then (amortised), and the oldest keys beyond maxKeys at once. */
  function prune(t: number): void {
    if (++hitsSinceSweep >= 1000) {
      hitsSinceSweep = 0;
      for (const key of [...log.keys()]) live(key, t);
    }
    while (log.size > maxKeys) log.delete(log.keys().next().value as string);
  }

  function record(key: string, t: number, events: number[]): void {
    events.push(t);
    if (events.length > maxPerKey) events.splice(0, events.length - maxPerKey);
    if (!log.has(key)) log.set(key, events);
    prune(t);
  }

  function stateOf(events: number[], limit: number, t: number): ThrottleState {
    if (events.length < limit) return { count: events.length, retryAfterMs: 0 };
    // The slot frees when the event that keeps the count at `limit` leaves the window.
    const pivot = events[events.length - limit]!;
    return { count: events.length, retryAfterMs: Math.max(1, pivot + opts.windowMs - t) };
  }

  return {
    async hit(key) {
      const t = now();
      record(key, t, live(key, t));
    },
    async check(key, limit) {
      const t = now();
      return stateOf(live(key, t), limit, t);
    },
    async take(key, limit) {
      const t = now();
      const events = live(key, t);
      const state = stateOf(events, limit, t);
      if (state.retryAfterMs === 0) record(key, t, events);
      return state;
    },
  };
}

/** S30: the throttled unit of a client address — IPv4 /32, IPv6 /64 (IPv4-mapped IPv6 as IPv4). */
export function addressKey(address: string): string {
  try {
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (ip.kind() === 'ipv4') return ip.toString();
    const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
  } catch {
    return address;
  }
}

function retry(ms: number): TooManyRequests {
  return new TooManyRequests(Math.ceil(ms / 1000));
}

export interface GuessPolicy {
  /** Key prefix: keeps the policies apart in a shared store. */
  name: string;
  /** Failures per address in the window after which the address gets 429 on every target. */
  addressLimit: number;
  /** Failures on one target, from all addresses, after which only clean addresses may try it. */
  targetLimit: number;
}

/**
 * Password guessing against targets (user names, shares), over a ThrottleStore:
 * - an address with `addressLimit` failures in the window gets 429, right password or not;
 * - a target with `targetLimit` failures in the window (spread over many addresses) answers 429 to
 *   the addresses that already failed on it in the window, while an address with no recent failure
 *   on it still gets through — so the real user (or visitor) is never locked out, and an address
 *   that has not failed is never affected;
 * - checks still running count against an address that already failed, so a burst of parallel
 *   guesses cannot overshoot its limit (successes are never counted, S83).
 * Targets are used as key parts as they are: pass a bounded text (a digest, a share hash).
 */
export function createGuessThrottle(store: ThrottleStore, policy: GuessPolicy) {
  const { name, addressLimit, targetLimit } = policy;
  /** Password checks in progress per address key. */
  const pending = new Map<string, number>();
  const addrKey = (address: string) => `${name}:a:${addressKey(address)}`;
  const targetKey = (target: string) => `${name}:t:${target}`;
  const pairKey = (address: string, target: string) => `${name}:ta:${target}:${addressKey(address)}`;

  return {
    /** Any request of an address: 429 once it has `addressLimit` failures in the window. */
    async admit(address: string): Promise<void> {
      const state = await store.check(addrKey(address), addressLimit);
      if (state.retryAfterMs > 0) throw retry(state.retryAfterMs);
    },

    /** Before a password is checked: throws 429, or returns the function that ends the attempt. */
    async begin(address: string, target: string): Promise<() => void> {
      const key = addrKey(address);
      const byAddress = await store.check(key, addressLimit);
      if (byAddress.retryAfterMs > 0) throw retry(byAddress.retryAfterMs);
      const inFlight = pending.get(key) ?? 0;
      // Parallel attempts resolve within a second or so; then the count says more.
      if (byAddress.count > 0 && byAddress.count + inFlight >= addressLimit) throw retry(1000);
      const byTarget = await store.check(targetKey(target), targetLimit);
      if (byTarget.retryAfterMs > 0) {
        const pair = await store.check(pairKey(address, target), 1);
        if (pair.retryAfterMs > 0) throw retry(Math.min(byTarget.retryAfterMs, pair.retryAfterMs));
      }
      pending.set(key, inFlight + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (pending.get(key) ?? 1) - 1;
        if (n > 0) pending.set(key, n);
        else pending.delete(key);
      };
    },

    /** Records one wrong password. */
    async failed(address: string, target: string): Promise<void> {
      await store.hit(addrKey(address));
      await store.hit(targetKey(target));
      await store.hit(pairKey(address, target));
    },
  };
}
export type GuessThrottle = ReturnType<typeof createGuessThrottle>;

/** Every request of an address counts; beyond `limit` in the window → 429. */
export function createRequestThrottle(store: ThrottleStore, policy: { name: string; limit: number }) {
  return {
    async admit(address: string): Promise<void> {
      const key = `${policy.name}:a:${addressKey(address)}`;
      const state = await store.take(key, policy.limit);
      if (state.retryAfterMs > 0) throw retry(state.retryAfterMs);
    },
  };
}
export type RequestThrottle = ReturnType<typeof createRequestThrottle>;

export const LOGIN_WINDOW_MS = 15 * 60 * 1000; // S30
export const LOGIN_ADDRESS_LIMIT = 10; // S30: failures per address per window
/** Failures of one user name from all addresses after which only clean addresses may try it. */
export const LOGIN_USERNAME_LIMIT = 30;
/**
 * Wrong second-factor codes of one user, from all addresses, after which every address gets 429 on
 * the code step (docs/api.md §2.12): whoever sends codes already has the password, so the user, not
 * the address, is the limit (a 6-digit code would fall to guesses spread over many addresses).
 * Above the address limit, so that guesses from one address alone never lock the user out.
 */
export const LOGIN_CODE_LIMIT = 20;
export const SIGNUP_WINDOW_MS = 60 * 60 * 1000; // S33
export const SIGNUP_ADDRESS_LIMIT = 20; // S33: requests per address per hour
export const SHARE_WINDOW_MS = 15 * 60 * 1000; // S45
export const SHARE_ADDRESS_LIMIT = 10; // S45: wrong share passwords per address per window
/** Wrong passwords on one share, from all addresses, after which only clean addresses may try it. */
export const SHARE_HASH_LIMIT = 30;

export const PUBLIC_UPLOAD_WINDOW_MS = 60 * 60 * 1000; // docs/api.md §23.3
/** Uploads one client address may start through upload shares per hour (all shares together). */
export const PUBLIC_UPLOADS_PER_ADDRESS = 1000;

/** docs/api.md §23.3: every upload a client address starts through an upload share counts. */
export function createPublicUploadThrottle(limit: number, store = createMemoryThrottleStore({ windowMs: PUBLIC_UPLOAD_WINDOW_MS, maxPerKey: limit })): RequestThrottle {
  return createRequestThrottle(store, { name: 'public-upload', limit });
}

/** Usernames can be 64 KiB long: keys carry a digest of the case-folded name. */
function nameKey(username: string): string {
  return createHash('sha256').update(username.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

/**
 * S30: the guessing policy with the user name (case-folded) as the target. Each policy counts in
 * its own store, in memory unless a shared one is given.
 */
export function createLoginThrottle(store = createMemoryThrottleStore({ windowMs: LOGIN_WINDOW_MS })) {
  const guesses = createGuessThrottle(store, {
    name: 'login',
    addressLimit: LOGIN_ADDRESS_LIMIT,
    targetLimit: LOGIN_USERNAME_LIMIT,
  });
  return {
    /** Throws TooManyRequests when this attempt must not be checked; otherwise returns a release function. */
    begin: (address: string, username: string) => guesses.begin(address, nameKey(username)),
    /** Records one failed, well-formed attempt. */
    failed: (address: string, username: string) => guesses.failed(address, nameKey(username)),
    /** Before a second-factor code of this user is checked: 429 once it has LOGIN_CODE_LIMIT wrong ones. */
    async codeAdmit(userId: number): Promise<void> {
      const state = await store.check(`login:code:${userId}`, LOGIN_CODE_LIMIT);
      if (state.retryAfterMs > 0) throw retry(state.retryAfterMs);
    },
    /** Records one wrong second-factor code of this user. */
    codeFailed: (userId: number) => store.hit(`login:code:${userId}`),
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/**
 * docs/api.md §2.13: requests of one address to /api/oidc/login and /api/oidc/callback together in
 * LOGIN_WINDOW_MS. A sign-in takes one of each, so this is 60 sign-ins per quarter hour from one
 * address (an office behind one NAT included); each sends Coffer to the provider (discovery, the
 * code exchange), which a flood would otherwise drive. Failed callbacks also count as failed logins
 * of the address in the login throttle (S30).
 */
export const OIDC_REQUESTS_PER_ADDRESS = 120;

export function createOidcThrottle(store = createMemoryThrottleStore({ windowMs: LOGIN_WINDOW_MS, maxPerKey: OIDC_REQUESTS_PER_ADDRESS })): RequestThrottle {
  return createRequestThrottle(store, { name: 'oidc', limit: OIDC_REQUESTS_PER_ADDRESS });
}

/** S33: more than SIGNUP_ADDRESS_LIMIT signup requests per address and hour → 429. */
export function createSignupThrottle(store = createMemoryThrottleStore({ windowMs: SIGNUP_WINDOW_MS })): RequestThrottle {
  return createRequestThrottle(store, { name: 'signup', limit: SIGNUP_ADDRESS_LIMIT });
}

/**
 * S45: share-password guessing, per client address (all shares together) and per share (guesses
 * spread over many addresses). `admit` runs on every request for a password-protected share.
 */
export function createSharePasswordThrottle(store = createMemoryThrottleStore({ windowMs: SHARE_WINDOW_MS })): GuessThrottle {
  return createGuessThrottle(store, { name: 'share', addressLimit: SHARE_ADDRESS_LIMIT, targetLimit: SHARE_HASH_LIMIT });
}
export type SharePasswordThrottle = GuessThrottle;
