/**
 * Re-selecting new items after a change (spec §2: "after a paste, move or upload the browser
 * re-selects the new item"). Whoever created items calls `requestReselect(folder, names)` once the
 * folder's listing has been reloaded; the file browser showing that folder selects them as soon as
 * they are in its listing. A browser mounted later (another folder visited meanwhile) ignores it.
 */
import { useCallback, useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { Selection } from './selection';

type Listener = (folder: string, names: readonly string[]) => void;
const listeners = new Set<Listener>();

export function requestReselect(folder: string, names: readonly string[]): void {
  if (names.length === 0) return;
  for (const listener of listeners) listener(folder, names);
}

/** The positions of the items named `names` in `items` (empty when none is listed yet). */
export function indexesOfNames(items: readonly { name: string }[], names: readonly string[]): number[] {
  const wanted = new Set(names);
  const out: number[] = [];
  items.forEach((item, i) => {
    if (wanted.has(item.name)) out.push(i);
  });
  return out;
}

/** Applies reselect requests for `folder` to the listing `items`. */
export function useReselect(
  folder: string,
  items: readonly { name: string }[],
  setSelection: Dispatch<SetStateAction<Selection>>,
): void {
  const wanted = useRef<readonly string[] | null>(null);
  const latest = useRef(items);
  const apply = useCallback(() => {
    if (!wanted.current) return;
    const found = indexesOfNames(latest.current, wanted.current);
    const first = found[0];
    if (first === undefined) return;
    wanted.current = null;
    // Multiple-selection mode stays as it was; the keyboard lands on the first new item.
    setSelection((s) => ({ ...s, selected: new Set(found), anchor: first, focus: first }));
  }, [setSelection]);

  useEffect(() => {
    latest.current = items;
    apply();
  }, [items, apply]);

  useEffect(() => {
    const listener: Listener = (target, names) => {
      if (target !== folder) return;
      wanted.current = names;
      apply();
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }, [folder, apply]);
}
