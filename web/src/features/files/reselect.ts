/**
 * Re-selecting new items after a change (docs/client.md §2: "after a paste, move or upload the browser
 * re-selects the new item"). Whoever created items calls `requestReselect(folder, names)` once the
 * change is done (or `requestReselectNew(folder, before)` when the server picked the names); the
 * file browser showing that folder selects them as soon as they are in its listing and scrolls to
 * the first. A request for a folder not shown waits until a browser shows it; a newer request for
 * the same folder replaces it.
 */
import { useCallback, useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { Selection } from './selection';

export interface Wanted {
  /** Names to select. */
  names: readonly string[];
  /** When set: also every item whose name is not in it (copies renamed by the server). */
  before: ReadonlySet<string> | null;
}

const waiting = new Map<string, Wanted>();
const listeners = new Set<(folder: string) => void>();

function want(folder: string, wanted: Wanted): void {
  waiting.set(folder, wanted);
  for (const listener of listeners) listener(folder);
}

/** Selects the items named `names` in `folder` (ends in `/`) once its listing has them. */
export function requestReselect(folder: string, names: readonly string[]): void {
  if (names.length === 0) return;
  want(folder, { names, before: null });
}

/** Selects whatever is in `folder` that was not among the names `before` (renamed copies). */
export function requestReselectNew(folder: string, before: readonly string[]): void {
  want(folder, { names: [], before: new Set(before) });
}

/** The positions of the wanted items in `items` (empty when none is listed yet). */
export function indexesOfWanted(items: readonly { name: string }[], wanted: Wanted): number[] {
  const names = new Set(wanted.names);
  const out: number[] = [];
  items.forEach((item, i) => {
    if (names.has(item.name) || (wanted.before !== null && !wanted.before.has(item.name))) out.push(i);
  });
  return out;
}

/** The positions of the items named `names` in `items`. */
export function indexesOfNames(items: readonly { name: string }[], names: readonly string[]): number[] {
  return indexesOfWanted(items, { names, before: null });
}

/**
 * Applies reselect requests for `folder` to the listing `items`; `onFound` gets the first
 * selected position (to scroll it into view).
 */
export function useReselect(
  folder: string,
  items: readonly { name: string }[],
  setSelection: Dispatch<SetStateAction<Selection>>,
  onFound?: (first: number) => void,
): void {
  const latest = useRef(items);
  const found = useRef(onFound);
  useEffect(() => {
    found.current = onFound;
  });
  const apply = useCallback(() => {
    const wanted = waiting.get(folder);
    if (!wanted) return;
    const indexes = indexesOfWanted(latest.current, wanted);
    const first = indexes[0];
    if (first === undefined) return;
    waiting.delete(folder);
    // Multiple-selection mode stays as it was; the keyboard lands on the first new item.
    setSelection((s) => ({ ...s, selected: new Set(indexes), anchor: first, focus: first }));
    found.current?.(first);
  }, [folder, setSelection]);

  useEffect(() => {
    latest.current = items;
    apply();
  }, [items, apply]);

  useEffect(() => {
    const listener = (target: string) => {
      if (target === folder) apply();
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [folder, apply]);
}
