/**
 * A byte quota as the forms edit it (docs/api.md §3.1 `quota`, §4.1 `defaults.quota`): an amount
 * and a binary unit; an empty amount means no quota (0). Plain TypeScript, tested without React.
 */
export const QUOTA_UNITS = ['MiB', 'GiB', 'TiB'] as const;
export type QuotaUnit = (typeof QUOTA_UNITS)[number];

const FACTOR: Record<QuotaUnit, number> = { MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

export interface QuotaParts {
  amount: string;
  unit: QuotaUnit;
}

/** The largest unit that shows the quota in at most two decimals; no quota → an empty amount in GiB. */
export function quotaParts(bytes: number): QuotaParts {
  if (!(bytes > 0)) return { amount: '', unit: 'GiB' };
  for (const unit of [...QUOTA_UNITS].reverse()) {
    const v = bytes / FACTOR[unit];
    if (v >= 1 && Math.abs(Math.round(v * 100) / 100 - v) * FACTOR[unit] < 1) return { amount: String(Math.round(v * 100) / 100), unit };
  }
  return { amount: String(Math.round((bytes / FACTOR.MiB) * 100) / 100), unit: 'MiB' };
}

/** Bytes from the form (0 = no quota), or null when the amount is not a positive number. */
export function quotaFromParts(parts: QuotaParts): number | null {
  const text = parts.amount.trim().replace(',', '.');
  if (text === '') return 0;
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) return null;
  const bytes = Math.round(Number(text) * FACTOR[parts.unit]);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) return null;
  return bytes;
}
