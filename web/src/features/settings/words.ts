/**
 * Lists edited as text (docs/client.md §5): allowed commands and the shell prefix are space-separated words
 * with blanks dropped; command runner textareas hold one command per line, empty lines dropped.
 */

/** "ls  git " → ["ls", "git"]. */
export function parseWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

export function formatWords(words: readonly string[] | null | undefined): string {
  return (words ?? []).join(' ');
}

/** One command per line, trimmed; blank lines dropped. */
export function parseLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function formatLines(lines: readonly string[] | null | undefined): string {
  return (lines ?? []).join('\n');
}
