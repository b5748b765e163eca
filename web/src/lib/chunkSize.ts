/**
 * The resumable-upload chunk size as people type it (docs/client.md §5): a number with optional decimals
 * and an optional unit — B, K, KB, M, MB, G, GB, T, TB, any case, multiples of 1024; no unit
 * means bytes. Shown back in the largest unit it fits. 0 turns chunking off.
 */
import { TUS_CHUNK_FALLBACK } from './limits';

const FACTORS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
};

const SHOWN: [string, number][] = [
  ['TB', 1024 ** 4],
  ['GB', 1024 ** 3],
  ['MB', 1024 ** 2],
  ['KB', 1024],
];

/** Bytes, or null when the text is not a size. */
export function parseChunkSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return null;
  const factor = FACTORS[(m[2] ?? '').toLowerCase()];
  if (factor === undefined) return null;
  const bytes = Math.round(Number(m[1]) * factor);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** Bytes from the text; what is not a size falls back to 1 MB (docs/client.md §9). */
export function chunkSizeFromText(text: string): number {
  return parseChunkSize(text) ?? TUS_CHUNK_FALLBACK;
}

/** 10485760 → "10MB", 1536 → "1.5KB", 100 → "100B", 0 → "0". At most two decimals. */
export function formatChunkSize(bytes: number): string {
  if (!(bytes > 0)) return '0';
  for (const [unit, factor] of SHOWN) {
    if (bytes >= factor) return `${Number((bytes / factor).toFixed(2))}${unit}`;
  }
  return `${Math.round(bytes)}B`;
}
