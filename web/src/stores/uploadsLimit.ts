/**
 * The user's uploadsLimit (docs/client.md §2 "Profile settings", §5, §9): how many uploads run at once, 1
 * to 10. The server's user record has no such field (docs/api.md §3.1; PUT /api/users/{id} refuses
 * unknown `which` names, S36), so the choice is kept in this browser, per user, like the theme.
 * The upload queue reads it with `uploadsLimitFor(user)`.
 */
import { create } from 'zustand';
import { MAX_CONCURRENT_UPLOADS, UPLOADS_LIMIT_MAX, UPLOADS_LIMIT_MIN } from '../lib/limits';

const key = (userId: number) => `coffer.uploadsLimit.${userId}`;

/** A whole number within 1..10, or null. */
export function validUploadsLimit(value: unknown): number | null {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(n) && n >= UPLOADS_LIMIT_MIN && n <= UPLOADS_LIMIT_MAX ? n : null;
}

function readStored(userId: number): number | null {
  try {
    return validUploadsLimit(localStorage.getItem(key(userId)));
  } catch {
    return null;
  }
}

interface UploadsLimitState {
  /** Chosen limits by user id, as read or set in this tab. */
  byUser: Record<number, number>;
}

export const useUploadsLimitStore = create<UploadsLimitState>()(() => ({ byUser: {} }));

// A limit saved in another tab of this browser applies here too (the queue there and here).
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (e) => {
    const id = e.key?.match(/^coffer\.uploadsLimit\.(\d+)$/)?.[1];
    if (id === undefined) return;
    const n = validUploadsLimit(e.newValue);
    useUploadsLimitStore.setState((s) => {
      const byUser = { ...s.byUser };
      if (n === null) delete byUser[Number(id)];
      else byUser[Number(id)] = n;
      return { byUser };
    });
  });
}

/** 1 without a user (docs/client.md §5); the user's choice; else the spec's 5 at once (§9). */
export function uploadsLimitFor(user: { id: number } | null | undefined): number {
  if (!user) return UPLOADS_LIMIT_MIN;
  return useUploadsLimitStore.getState().byUser[user.id] ?? readStored(user.id) ?? MAX_CONCURRENT_UPLOADS;
}

/** The limit of `user`, re-rendering when it changes. */
export function useUploadsLimit(user: { id: number } | null | undefined): number {
  const chosen = useUploadsLimitStore((s) => (user ? s.byUser[user.id] : undefined));
  return chosen ?? uploadsLimitFor(user);
}

/** Stores a limit; throws RangeError outside 1..10. */
export function setUploadsLimit(userId: number, value: number): void {
  const n = validUploadsLimit(value);
  if (n === null) throw new RangeError(`uploadsLimit must be ${UPLOADS_LIMIT_MIN}..${UPLOADS_LIMIT_MAX}`);
  localStorage.setItem(key(userId), String(n));
  useUploadsLimitStore.setState((s) => ({ byUser: { ...s.byUser, [userId]: n } }));
}
