/**
 * docs/api.md §16.2 / S71: a command line becomes argv, shell-style but without any expansion, and a
 * shell is involved only when the admin configured one in `settings.shell`.
 */
import { split } from 'shlex';

/** The line could not be split; `message` is the text sent to the client (docs/api.md §16.2). */
export class CommandParseError extends Error {}

/** A private-use character the line does not contain, standing in for `$` while splitting. */
function unusedPlaceholder(line: string): string {
  for (let cp = 0xe000; cp <= 0xf8ff; cp++) {
    const ch = String.fromCodePoint(cp);
    if (!line.includes(ch)) return ch;
  }
  // 6400 distinct private-use characters in one line: refuse rather than guess.
  throw new CommandParseError('error parsing command: unsupported characters');
}

/**
 * POSIX word splitting (blanks, tabs and newlines separate words; `'…'` literal; `"…"` groups,
 * where `\"` and `\\` are escapes; `\` outside quotes escapes the next character). Nothing is
 * expanded: `$VAR`, `$(…)`, backticks, globs, `~`, `;`, `&&`, `|`, `>` and `#` stay plain text.
 * Throws CommandParseError with File Browser's wording on an unclosed quote, a trailing backslash
 * or a blank line.
 */
export function splitCommandLine(line: string): string[] {
  // shlex also decodes bash's $'…' and $"…" quotes; POSIX has no such thing and S71 allows no
  // expansion, so `$` is hidden behind a character shlex treats as ordinary text.
  const dollar = line.includes('$') ? unusedPlaceholder(line) : '';
  let words: string[];
  try {
    words = split(dollar ? line.replaceAll('$', dollar) : line);
  } catch (err) {
    throw new CommandParseError(`error parsing command: ${(err as Error).message}`);
  }
  if (dollar) words = words.map((w) => w.replaceAll(dollar, '$'));
  if (words.length === 0) throw new CommandParseError(`no command contained in '${line}'`);
  return words;
}

/** The program and its arguments as they are spawned (never through `spawn`'s shell option). */
export interface Invocation {
  file: string;
  args: string[];
  /** True when `settings.shell` wraps the line (the rest of the line is the shell's to interpret). */
  viaShell: boolean;
}

/** `settings.shell` is in effect when it has a non-empty first element (docs/api.md §16.2). */
export function shellInEffect(shell: readonly string[]): boolean {
  return shell.length > 0 && shell[0] !== '';
}

/**
 * docs/api.md §16.2: without a shell the words are the argv; with one, the shell gets its own
 * arguments followed by the whole line as a single argument (e.g. `bash -c "<line>"`).
 */
export function invocation(line: string, words: readonly string[], shell: readonly string[]): Invocation {
  if (shellInEffect(shell)) return { file: shell[0]!, args: [...shell.slice(1), line], viaShell: true };
  return { file: words[0]!, args: words.slice(1), viaShell: false };
}
