const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/** Parses a Go duration ("2h", "1h30m", "90s", "1.5h") into seconds; null when unparsable. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '' || s === '0') return s === '0' ? 0 : null;
  const re = /(\d+(?:\.\d+)?)(h|ms|us|µs|ns|m|s)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (UNIT_SECONDS[m[2]!] ?? 0);
    consumed = re.lastIndex;
  }
  return consumed === s.length && consumed > 0 ? total : null;
}
