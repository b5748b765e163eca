/**
 * Command history of the shell panel (docs/client.md §2: up and down arrows). Plain data so it can be tested
 * without React: the list of past commands, and a cursor that remembers what was being typed
 * before the user started walking through it.
 */

/** Oldest entries drop off past this many. */
export const MAX_HISTORY = 500;

export interface HistoryCursor {
  /** Position in the history; `history.length` means "the line being typed". */
  index: number;
  /** The line being typed when the walk started, given back when walking past the newest entry. */
  draft: string;
}

export function freshCursor(history: readonly string[]): HistoryCursor {
  return { index: history.length, draft: '' };
}

/** Adds a run command; a repeat of the newest entry is not stored twice. */
export function remember(history: readonly string[], line: string): string[] {
  if (history.at(-1) === line) return [...history];
  return [...history, line].slice(-MAX_HISTORY);
}

/**
 * One step up (-1, older) or down (+1, newer) from `cursor` while the input holds `current`.
 * Returns the new cursor and the text to show, or null when there is nowhere to go.
 */
export function step(
  history: readonly string[],
  cursor: HistoryCursor,
  current: string,
  direction: -1 | 1,
): { cursor: HistoryCursor; value: string } | null {
  const index = Math.min(cursor.index, history.length);
  const next = index + direction;
  if (next < 0 || next > history.length) return null;
  const draft = index === history.length ? current : cursor.draft;
  const value = next === history.length ? draft : (history[next] ?? '');
  return { cursor: { index: next, draft }, value };
}
