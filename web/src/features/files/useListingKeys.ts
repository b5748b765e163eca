/**
 * The keyboard shortcuts of docs/client.md §2 that act on the listing (F1 and search live in the
 * shell): Escape, arrows into the listing, Delete, F2, Ctrl+A, Ctrl+C / Ctrl+X / Ctrl+V and Ctrl+S.
 * None while a prompt is open or the user types in a field.
 */
import { useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { ResourceItem } from '../../api/resources';
import { isTypingTarget } from '../../lib/keyboard';
import { useClipboard } from './clipboard';
import type { Reveal } from './Listing';
import { EMPTY_SELECTION, focusItem, isMoveKey, selectAll, type Selection } from './selection';

/** Focus is on nothing in particular: arrow keys then start moving through the listing. */
function onPageItself(target: EventTarget | null): boolean {
  return target === document.body || (target instanceof HTMLElement && target.id === 'main');
}

export interface ListingKeys {
  /** The folder shown. */
  path: string;
  items: readonly ResourceItem[];
  selection: Selection;
  selected: readonly ResourceItem[];
  setSelection: Dispatch<SetStateAction<Selection>>;
  setReveal: (reveal: Reveal) => void;
  /** A prompt is open: the keys are its own. */
  promptOpen: boolean;
  can: { delete: boolean; rename: boolean; download: boolean; copy: boolean; move: boolean; create: boolean };
  rename: () => Promise<void>;
  remove: () => Promise<void>;
  download: () => Promise<void>;
  paste: () => Promise<void>;
}

export function useListingKeys(keys: ListingKeys) {
  // The listener is added once per state that changes which keys work; it reads the rest here.
  const latest = useRef(keys);
  useEffect(() => {
    latest.current = keys;
  });
  const { promptOpen, can, path, setSelection, setReveal } = keys;
  const count = keys.items.length;
  useEffect(() => {
    if (promptOpen) return;
    function handleKeyDown(e: globalThis.KeyboardEvent) {
      if (isTypingTarget(e.target) || e.defaultPrevented) return;
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === 'Escape') setSelection(EMPTY_SELECTION);
      else if (isMoveKey(e.key) && onPageItself(e.target) && count > 0) {
        // Into the listing: to the item last focused, else the first (or last) one.
        e.preventDefault();
        const { selection: sel } = latest.current;
        const backwards = e.key === 'ArrowUp' || e.key === 'End';
        const index = sel.focus ?? (backwards ? count - 1 : 0);
        if (sel.selected.size === 0) setSelection((s) => focusItem(s, index, { extend: false, keep: false }));
        else setSelection((s) => ({ ...s, focus: index }));
        setReveal({ index, focus: true });
      } else if (e.key === 'Delete' && can.delete) void latest.current.remove();
      else if (e.key === 'F2' && can.rename) {
        e.preventDefault();
        void latest.current.rename();
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'a') {
        e.preventDefault();
        setSelection((s) => selectAll(s, count));
      } else if (mod && !e.shiftKey && (e.key.toLowerCase() === 'c' || e.key.toLowerCase() === 'x')) {
        const cut = e.key.toLowerCase() === 'x';
        const chosen = latest.current.selected;
        if (chosen.length === 0 || (cut ? !can.move : !can.copy)) return;
        if (window.getSelection()?.toString()) return; // the user is copying text
        useClipboard.setState({
          key: cut ? 'x' : 'c',
          items: chosen.map((i) => ({ from: i.path, name: i.name })),
          path,
        });
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 'v') {
        if (!can.create && useClipboard.getState().key === 'c') return;
        e.preventDefault();
        void latest.current.paste();
      } else if (mod && !e.shiftKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (can.download) void latest.current.download();
      }
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [
    promptOpen,
    can.delete,
    can.rename,
    can.download,
    can.copy,
    can.move,
    can.create,
    count,
    path,
    setSelection,
    setReveal,
  ]);
}
