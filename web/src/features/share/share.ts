/** The share rules the prompt and the management page follow (docs/client.md §5, §9), as plain data. */
import type { Share, ShareUnit } from '../../api/shares';
import { MAX_SHARE_DURATION } from '../../lib/limits';

export const SHARE_UNITS: readonly ShareUnit[] = ['seconds', 'minutes', 'hours', 'days'];
export const DEFAULT_SHARE_UNIT: ShareUnit = 'hours'; // docs/client.md §9

/** A whole number from 0 to 2147483647, or null (docs/client.md §5). Empty means 0: the link never expires. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '') return 0;
  if (!/^\d+$/.test(s)) return null;
  const n = Number(s);
  return n <= MAX_SHARE_DURATION ? n : null;
}

/** docs/client.md §9: never-expiring links first, then the soonest to expire. Stable for equal expiries. */
export function sortShares<T extends Pick<Share, 'expire'>>(shares: readonly T[]): T[] {
  return [...shares].sort((a, b) => {
    if (a.expire === b.expire) return 0;
    if (a.expire === 0) return -1;
    if (b.expire === 0) return 1;
    return a.expire - b.expire;
  });
}

/** The path a share of this item is made for: folders as `/dir/` (docs/api.md §14.1). */
export function sharePath(item: { path: string; isDir: boolean }): string {
  if (!item.isDir || item.path.endsWith('/')) return item.path;
  return `${item.path}/`;
}

/** When the link stops working; null for a permanent one. */
export function expiryDate(share: Pick<Share, 'expire'>): Date | null {
  return share.expire === 0 ? null : new Date(share.expire * 1000);
}
