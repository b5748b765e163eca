/**
 * The text rules of one hook line (docs/api.md §16.6, S72): the trailing `&`, and `$NAME` / `${NAME}`
 * replaced inside single argv elements — never by re-splitting, so a value stays one argument
 * whatever it contains.
 */

/** A line ending in `&` is started and not waited for; the `&` is not part of the command. */
export function parseHookLine(raw: string): { line: string; blocking: boolean } {
  const line = raw.trim();
  if (line.endsWith('&')) return { line: line.slice(0, -1).trim(), blocking: false };
  return { line, blocking: true };
}

const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * Replaces `$NAME` and `${NAME}` in one argument by `lookup(NAME)` (empty when undefined). Anything
 * else after a `$` (`$1`, `$(…)`, `${a-b}`, a lone `$`) is left as it is. One pass: a value that
 * itself contains `$X` is not expanded again.
 */
export function expandVariables(arg: string, lookup: (name: string) => string | undefined): string {
  return arg.replace(VARIABLE, (_m, braced: string | undefined, bare: string | undefined) => lookup((braced ?? bare)!) ?? '');
}
