/**
 * S45 over the shared Throttle: share-password guessing is limited per client address (all shares
 * together) and per share (guesses spread over many addresses).
 */
import { addressKey, type Throttle } from '../auth/throttle.js';
import { TooManyRequests } from '../../http/errors.js';

export const SHARE_WINDOW_MS = 15 * 60 * 1000; // S45
export const SHARE_ADDRESS_LIMIT = 10; // S45: wrong share passwords per address per window
/**
 * Wrong passwords on one share, from all addresses, after which only addresses that have not yet
 * failed on it may try (one guess each): a distributed guesser is slowed down, while the real
 * visitors, who have not failed, are never locked out.
 */
export const SHARE_HASH_LIMIT = 30;

function retry(ms: number): TooManyRequests {
  return new TooManyRequests(Math.ceil(ms / 1000));
}

export function createSharePasswordThrottle(throttle: Throttle) {
  /** Password checks in progress per address, so a parallel burst cannot overshoot the limit. */
  const pending = new Map<string, number>();
  const addrKey = (address: string) => `share:a:${addressKey(address)}`;

  return {
    /**
     * Every request for a password-protected share: an address with SHARE_ADDRESS_LIMIT wrong
     * passwords in the window gets 429, whatever it carries (S45).
     */
    async admit(address: string): Promise<void> {
      const state = await throttle.check(addrKey(address), SHARE_ADDRESS_LIMIT);
      if (state.retryAfterMs > 0) throw retry(state.retryAfterMs);
    },

    /** Before a password is verified; throws 429 or returns the function that ends the attempt. */
    async begin(address: string, hash: string): Promise<() => void> {
      const key = addrKey(address);
      const byAddress = await throttle.check(key, SHARE_ADDRESS_LIMIT);
      if (byAddress.retryAfterMs > 0) throw retry(byAddress.retryAfterMs);
      const inFlight = pending.get(key) ?? 0;
      // An address that already failed cannot run more parallel checks than it has guesses left.
      if (byAddress.count > 0 && byAddress.count + inFlight >= SHARE_ADDRESS_LIMIT) throw retry(1000);
      const byShare = await throttle.check(`share:h:${hash}`, SHARE_HASH_LIMIT);
      if (byShare.retryAfterMs > 0) {
        const pair = await throttle.check(`share:ha:${hash}:${addressKey(address)}`, 1);
        if (pair.retryAfterMs > 0) throw retry(Math.min(byShare.retryAfterMs, pair.retryAfterMs));
      }
      pending.set(key, inFlight + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const n = (pending.get(key) ?? 1) - 1;
        if (n > 0) pending.set(key, n);
        else pending.delete(key);
      };
    },

    /** One wrong password. */
    async failed(address: string, hash: string): Promise<void> {
      await throttle.hit(addrKey(address));
      await throttle.hit(`share:h:${hash}`);
      await throttle.hit(`share:ha:${hash}:${addressKey(address)}`);
    },
  };
}
export type SharePasswordThrottle = ReturnType<typeof createSharePasswordThrottle>;
