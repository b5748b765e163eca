import { describe, expect, it } from 'vitest';
import { formatSizeNumber, splitBytes, usedPercent } from './bytes';

describe('splitBytes', () => {
  it('keeps counts below 1024 in bytes', () => {
    expect(splitBytes(0)).toEqual({ value: 0, unit: 'B' });
    expect(splitBytes(1023)).toEqual({ value: 1023, unit: 'B' });
  });
  it('uses binary steps of 1024', () => {
    expect(splitBytes(1024)).toEqual({ value: 1, unit: 'KiB' });
    expect(splitBytes(1536 * 1024)).toEqual({ value: 1.5, unit: 'MiB' });
    expect(splitBytes(5 * 1024 ** 4)).toEqual({ value: 5, unit: 'TiB' });
  });
});

describe('formatSizeNumber', () => {
  it('uses the locale decimal separator', () => {
    expect(formatSizeNumber(1.5, 'MiB', 'en')).toBe('1.5');
    expect(formatSizeNumber(1.5, 'MiB', 'de')).toBe('1,5');
  });
  it('prints bytes whole', () => {
    expect(formatSizeNumber(12, 'B', 'fr')).toBe('12');
  });
});

describe('usedPercent', () => {
  it('rounds and clamps', () => {
    expect(usedPercent(1, 3)).toBe(33);
    expect(usedPercent(2, 3)).toBe(67);
    expect(usedPercent(5, 4)).toBe(100);
    expect(usedPercent(5, 0)).toBe(0);
  });
});
