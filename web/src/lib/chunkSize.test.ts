import { describe, expect, it } from 'vitest';
import { chunkSizeFromText, formatChunkSize, parseChunkSize } from './chunkSize';

describe('chunk size text', () => {
  it.each([
    ['10MB', 10 * 1024 ** 2],
    ['10mb', 10 * 1024 ** 2],
    ['10 M', 10 * 1024 ** 2],
    ['1.5KB', 1536],
    ['1.5k', 1536],
    ['.5G', 512 * 1024 ** 2],
    ['2gB', 2 * 1024 ** 3],
    ['1TB', 1024 ** 4],
    ['1t', 1024 ** 4],
    ['512', 512],
    ['512B', 512],
    ['512 b', 512],
    ['0', 0],
    [' 3. MB ', 3 * 1024 ** 2],
  ])('reads %j as %d bytes', (text, bytes) => {
    expect(parseChunkSize(text)).toBe(bytes);
  });

  it.each(['', 'MB', '10 XB', '10MiB', '-1MB', '1,5MB', '1e3', '10 MB MB', '1..2K', '99999999999999999TB'])(
    'refuses %j',
    (text) => {
      expect(parseChunkSize(text)).toBeNull();
    },
  );

  it('falls back to 1 MB when the text is not a size', () => {
    expect(chunkSizeFromText('lots')).toBe(1024 ** 2);
    expect(chunkSizeFromText('0')).toBe(0);
    expect(chunkSizeFromText('20MB')).toBe(20 * 1024 ** 2);
  });

  it.each([
    [10 * 1024 ** 2, '10MB'],
    [1536, '1.5KB'],
    [1024, '1KB'],
    [1000, '1000B'],
    [1, '1B'],
    [0, '0'],
    [5 * 1024 ** 3, '5GB'],
    [2 * 1024 ** 4, '2TB'],
    [1024 ** 2 + 1, '1MB'],
    [Math.round(1.333 * 1024 ** 2), '1.33MB'],
  ])('shows %d bytes as %s', (bytes, text) => {
    expect(formatChunkSize(bytes)).toBe(text);
  });

  it('reads back what it shows for round sizes', () => {
    for (const bytes of [512, 1536, 10 * 1024 ** 2, 3 * 1024 ** 3]) {
      expect(parseChunkSize(formatChunkSize(bytes))).toBe(bytes);
    }
  });
});
