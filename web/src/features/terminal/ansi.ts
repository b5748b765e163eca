/**
 * docs/client.md §2 "Shell panel": colour escape codes are removed from a command's output. The server sends
 * one line per message (docs/api.md §16.1), so every line is cleaned as it arrives: by the time the
 * command is done its whole output is free of them, and nothing unreadable ever shows meanwhile.
 */
import stripAnsi from 'strip-ansi';

/** A line without escape sequences (colours, cursor moves, hyperlinks) or control characters but tabs. */
export function cleanLine(line: string): string {
  // eslint-disable-next-line no-control-regex
  return stripAnsi(line).replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '');
}
