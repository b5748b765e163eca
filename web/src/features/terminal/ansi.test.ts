import { describe, expect, it } from 'vitest';
import { cleanLine } from './ansi';

describe('cleanLine', () => {
  it('removes SGR colour codes', () => {
    expect(cleanLine('\u001b[01;34mdocs\u001b[0m  \u001b[32mrun.sh\u001b[m')).toBe('docs  run.sh');
  });

  it('removes 256-colour, true-colour and cursor sequences', () => {
    expect(cleanLine('\u001b[38;5;208morange\u001b[39m \u001b[48;2;1;2;3mbg\u001b[0m\u001b[2K\u001b[1G!')).toBe(
      'orange bg!',
    );
  });

  it('removes OSC hyperlinks but keeps their text', () => {
    expect(cleanLine('\u001b]8;;file:///tmp/a\u0007a.txt\u001b]8;;\u0007')).toBe('a.txt');
  });

  it('keeps tabs and text in any script, drops other control characters', () => {
    expect(cleanLine('a\tb\u0008c\u0000\r')).toBe('a\tbc');
    expect(cleanLine('naïve — 日本語 עברית')).toBe('naïve — 日本語 עברית');
  });

  it('leaves a line without codes as it is', () => {
    expect(cleanLine('total 12')).toBe('total 12');
    expect(cleanLine('')).toBe('');
  });
});
