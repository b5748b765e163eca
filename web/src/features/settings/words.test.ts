import { describe, expect, it } from 'vitest';
import { formatLines, formatWords, parseLines, parseWords } from './words';

describe('words and lines', () => {
  it('splits on spaces and drops blanks', () => {
    expect(parseWords('  bash   -c ')).toEqual(['bash', '-c']);
    expect(parseWords('')).toEqual([]);
    expect(parseWords('ls\tgit')).toEqual(['ls', 'git']);
    expect(formatWords(['ls', 'git'])).toBe('ls git');
    expect(formatWords(null)).toBe('');
  });

  it('takes one command per line and drops empty lines', () => {
    expect(parseLines('echo a\r\n\n  \n  touch "$FILE" &  \n')).toEqual(['echo a', 'touch "$FILE" &']);
    expect(parseLines('')).toEqual([]);
    expect(formatLines(['a', 'b'])).toBe('a\nb');
  });
});
