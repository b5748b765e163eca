import { describe, expect, it } from 'vitest';
import { CommandParseError, invocation, shellInEffect, splitCommandLine } from './split.js';

describe('splitCommandLine (docs/api.md §16.2, S71)', () => {
  it('separates words on blanks, tabs and newlines', () => {
    expect(splitCommandLine('ls -la')).toEqual(['ls', '-la']);
    expect(splitCommandLine('  a \t b\nc  ')).toEqual(['a', 'b', 'c']);
  });

  it('groups quoted text and honours backslash escapes', () => {
    expect(splitCommandLine('ls -la "my dir"')).toEqual(['ls', '-la', 'my dir']);
    expect(splitCommandLine("echo 'a b' c\\ d")).toEqual(['echo', 'a b', 'c d']);
    expect(splitCommandLine('echo "say \\"hi\\"" \\\\')).toEqual(['echo', 'say "hi"', '\\']);
    expect(splitCommandLine('a"b c"d')).toEqual(['ab cd']);
    expect(splitCommandLine(`echo '' ""`)).toEqual(['echo', '', '']);
  });

  it('keeps single-quoted text literal, backslashes included', () => {
    expect(splitCommandLine("echo 'a\\b' '$HOME'")).toEqual(['echo', 'a\\b', '$HOME']);
  });

  it('leaves operators, substitutions and globs as plain text', () => {
    expect(splitCommandLine('echo a; touch x')).toEqual(['echo', 'a;', 'touch', 'x']);
    expect(splitCommandLine('echo $(id) `id` && a|b > f 2>&1 &')).toEqual(['echo', '$(id)', '`id`', '&&', 'a|b', '>', 'f', '2>&1', '&']);
    expect(splitCommandLine('echo $HOME ${PATH} ~ * #c')).toEqual(['echo', '$HOME', '${PATH}', '~', '*', '#c']);
  });

  it('does not decode bash $\'…\' or $"…" quotes (no expansion of any kind)', () => {
    expect(splitCommandLine("echo $'\\x41'")).toEqual(['echo', '$\\x41']);
    expect(splitCommandLine('echo $"a b"')).toEqual(['echo', '$a b']);
    expect(splitCommandLine('echo "$x" a$b')).toEqual(['echo', '$x', 'a$b']);
  });

  it('keeps a line that already holds private-use characters intact', () => {
    expect(splitCommandLine('echo \u{e000}$\u{e001}')).toEqual(['echo', '\u{e000}$\u{e001}']);
  });

  it('refuses unclosed quotes and a trailing backslash with File Browser\'s prefix', () => {
    for (const bad of ['echo "open', "echo 'open", 'echo end\\']) {
      expect(() => splitCommandLine(bad), bad).toThrow(CommandParseError);
      expect(() => splitCommandLine(bad), bad).toThrow(/^error parsing command: /);
    }
  });

  it('refuses a line with no words', () => {
    expect(() => splitCommandLine(' \t ')).toThrow("no command contained in ' \t '");
    expect(() => splitCommandLine('')).toThrow(CommandParseError);
  });
});

describe('invocation', () => {
  it('runs the words directly when no shell is set', () => {
    expect(invocation('echo a; b', ['echo', 'a;', 'b'], [])).toEqual({ file: 'echo', args: ['a;', 'b'], viaShell: false });
    expect(invocation('echo', ['echo'], [''])).toEqual({ file: 'echo', args: [], viaShell: false });
  });

  it('hands the whole line to the configured shell as its last argument', () => {
    expect(invocation('echo a; b', ['echo', 'a;', 'b'], ['bash', '-c'])).toEqual({ file: 'bash', args: ['-c', 'echo a; b'], viaShell: true });
  });

  it('treats a shell whose first element is empty as no shell', () => {
    expect(shellInEffect([])).toBe(false);
    expect(shellInEffect(['', '-c'])).toBe(false);
    expect(shellInEffect(['sh'])).toBe(true);
  });
});
