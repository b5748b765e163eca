import { describe, expect, it } from 'vitest';
import { etagOf, fraction, goFileMode, rfc3339Nano, splitNs } from './format.js';

describe('Go renderings', () => {
  it('maps st_mode to os.FileMode numbers', () => {
    expect(goFileMode(0o100644)).toBe(420);
    expect(goFileMode(0o040755)).toBe(2147484141);
    expect(goFileMode(0o120777)).toBe(2 ** 27 + 0o777);
    expect(goFileMode(0o010644)).toBe(2 ** 25 + 0o644);
    expect(goFileMode(0o020666)).toBe(2 ** 26 + 2 ** 21 + 0o666);
    expect(goFileMode(0o104755)).toBe(2 ** 23 + 0o755);
    expect(goFileMode(0o041777)).toBe(2 ** 31 + 2 ** 20 + 0o777);
  });
  it('formats RFC 3339 with trimmed nanoseconds', () => {
    process.env.TZ = 'UTC';
    expect(rfc3339Nano(1704067200, 0)).toBe('2024-01-01T00:00:00Z');
    expect(rfc3339Nano(1704067200, 123456789)).toBe('2024-01-01T00:00:00.123456789Z');
    expect(rfc3339Nano(1704067200, 500000000)).toBe('2024-01-01T00:00:00.5Z');
    expect(Date.parse(rfc3339Nano(1704067200, 120000))).toBe(1704067200000);
  });
  it('writes the fraction as nine digits without trailing zeros', () => {
    const reference = (ns: number) => (ns > 0 ? '.' + String(ns).padStart(9, '0').replace(/0+$/, '') : '');
    const samples = [0, 1, 5, 10, 1000, 120000, 500000000, 999999999, 100000000, 123456789, 120000000, 7000007];
    for (let k = 0; k < 2000; k++) samples.push((Math.imul(k + 1, 2654435761) >>> 0) % 1e9, ((k * 7919) % 1e5) * 10 ** (k % 5));
    for (const ns of samples) expect(fraction(ns), String(ns)).toBe(reference(ns));
  });
  it('splits nanoseconds and builds the ETag', () => {
    expect(splitNs(1704067200123456789n)).toEqual({ sec: 1704067200, nsec: 123456789 });
    expect(etagOf(255n, 16)).toBe('"ff10"');
  });
});
