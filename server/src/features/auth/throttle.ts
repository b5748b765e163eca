/**
 * Counters behind the login (S30) and signup (S33) limits. `Throttle` is a sliding-window event
 * log per key; the in-memory one serves a single instance, a shared store (Redis) can implement
 * the same interface when several instances run.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { TooManyRequests } from '../../http/errors.js';

export interface ThrottleState {
  /** Events of this key inside the window. */
  count: number;
  /** Milliseconds until the count drops below `limit` (0 when already below). */
  retryAfterMs: number;
}

export interface Throttle {
  /** Records one event for `key` now. */
  hit(key: string): Promise<void>;
  /** The key's events inside the window, and when it falls below `limit`. */
  check(key: string, limit: number): Promise<ThrottleState>;
}

export interface MemoryThrottleOptions {
  windowMs: number;
  now?: () => number;
  /** Keys kept at most; the oldest key is forgotten beyond (bounded memory under a flood). */
  maxKeys?: number;
  /** Events kept per key; must be ≥ every limit asked of `check`. */
  maxPerKey?: number;
}

export function createMemoryThrottle(opts: MemoryThrottleOptions): Throttle {
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

  return {
    async hit(key) {
      const t = now();
      const events = live(key, t);
      events.push(t);
      if (events.length > maxPerKey) events.splice(0, events.length - maxPerKey);
      if (!log.has(key)) log.set(key, events);
      prune(t);
    },
    async check(key, limit) {
      const t = now();
      const events = live(key, t);
      if (events.length < limit) return { count: events.length, retryAfterMs: 0 };
      // The slot frees when the event that keeps the count at `limit` leaves the window.
      const pivot = events[events.length - limit]!;
      return { count: events.length, retryAfterMs: Math.max(1, pivot + opts.windowMs - t) };
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

/** Usernames can be 64 KiB long: keys carry a digest of the case-folded name. */
function nameKey(username: string): string {
  return createHash('sha256').update(username.trim().toLowerCase()).digest('base64url').slice(0, 22);
}

export const LOGIN_WINDOW_MS = 15 * 60 * 1000; // S30
export const LOGIN_ADDRESS_LIMIT = 10; // S30: failures per address per window
/** Failures of one user name from all addresses after which only clean addresses may try it. */
export const LOGIN_USERNAME_LIMIT = 30;
export const SIGNUP_WINDOW_MS = 60 * 60 * 1000; // S33
export const SIGNUP_ADDRESS_LIMIT = 20; // S33: requests per address per hour

/**
 * S30's policy over a Throttle:
 * - an address with LOGIN_ADDRESS_LIMIT failures in the window gets 429, right password or not;
 * - a user name with LOGIN_USERNAME_LIMIT failures in the window (spread over many addresses)
 *   answers 429 to the addresses that already failed on it in the window, while an address with
 *   no recent failure on it still gets through — so the real user is never locked out, and an
 *   address that has not failed is never affected;
 * - attempts still being verified count against an address that already failed, so a burst of
 *   parallel guesses cannot overshoot the limit (successful logins are never counted, S83).
 */
export function createLoginThrottle(throttle: Throttle) {
  const pending = new Map<string, number>();

  function retry(ms: number): TooManyRequests {
    return new TooManyRequests(Math.ceil(ms / 1000));
  }

  return {
    /** Throws TooManyRequests when this attempt must not be checked; otherwise returns a release function. */
    async begin(address: string, username: string): Promise<() => void> {
      const addr = `login:a:${addressKey(address)}`;
      const byAddress = await throttle.check(addr, LOGIN_ADDRESS_LIMIT);
      if (byAddress.retryAfterMs > 0) throw retry(byAddress.retryAfterMs);
      const inFlight = pending.get(addr) ?? 0;
      // The parallel attempts resolve within a second or so; then the count says more.
      if (byAddress.count > 0 && byAddress.count + inFlight >= LOGIN_ADDRESS_LIMIT) throw retry(1000);
      const name = nameKey(username);
      const byName = await throttle.check(`login:u:${name}`, LOGIN_USERNAME_LIMIT);
      if (byName.retryAfterMs > 0) {
        const pair = await throttle.check(`login:ua:${name}:${addressKey(address)}`, 1);
        if (pair.retryAfterMs > 0) throw retry(Math.min(byName.retryAfterMs, pair.retryAfterMs));
      }
      pending.set(addr, inFlight + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const n = (pending.get(addr) ?? 1) - 1;
        if (n > 0) pending.set(addr, n);
        else pending.delete(addr);
      };
    },

    /** Records one failed, well-formed attempt. */
    async failed(address: string, username: string): Promise<void> {
      const name = nameKey(username);
      await throttle.hit(`login:a:${addressKey(address)}`);
      await throttle.hit(`login:u:${name}`);
      await throttle.hit(`login:ua:${name}:${addressKey(address)}`);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/** S33: more than SIGNUP_ADDRESS_LIMIT signup requests per address and hour → 429. */
export function createSignupThrottle(throttle: Throttle) {
  return {
    async admit(address: string): Promise<void> {
      const key = `signup:a:${addressKey(address)}`;
      const state = await throttle.check(key, SIGNUP_ADDRESS_LIMIT);
      if (state.retryAfterMs > 0) throw new TooManyRequests(Math.ceil(state.retryAfterMs / 1000));
      await throttle.hit(key);
    },
  };
}
export type SignupThrottle = ReturnType<typeof createSignupThrottle>;
