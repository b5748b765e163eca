/**
 * The listing's selection over time, and its scroll position: Back and Forward come back to where
 * the user was (scroll, selection, focus; scrollMemory.ts keeps the places), a new visit starts at
 * the top with nothing selected, and a reloaded listing keeps the selection of items with the same
 * path (docs/client.md §4).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useLocation, useNavigationType } from 'react-router';
import type { ResourceItem } from '../../api/resources';
import { followScroll, recall, remember } from './scrollMemory';
import { carrySelection, EMPTY_SELECTION, selectedItems, selectPaths, type Selection } from './selection';

export function useListingSelection(items: readonly ResourceItem[]) {
  const placeKey = useLocation().key;
  const navigationType = useNavigationType();
  const [restored] = useState(() => (navigationType === 'POP' ? recall(placeKey) : undefined));
  const [selection, setSelection] = useState<Selection>(() => {
    if (!restored) return EMPTY_SELECTION;
    const back = selectPaths(EMPTY_SELECTION, items, restored.selected);
    const focus = items.findIndex((i) => i.path === restored.focus);
    return focus >= 0 ? { ...back, focus } : back;
  });
  // The place to scroll back to, until the page is long enough to reach it: a listing still
  // arriving (FileBrowser's `arriving`) may first hold too few rows, and the browser stops the
  // scroll at the page's end. Given up once the user scrolls, taps or types.
  const wantY = useRef<number | null>(restored?.y ?? null);
  useLayoutEffect(() => {
    window.history.scrollRestoration = 'manual';
    window.scrollTo(0, restored?.y ?? 0);
    const giveUp = () => (wantY.current = null);
    const events = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
    for (const e of events) window.addEventListener(e, giveUp, { passive: true });
    return () => {
      for (const e of events) window.removeEventListener(e, giveUp);
    };
  }, [restored]);
  useLayoutEffect(() => {
    const y = wantY.current;
    if (y === null) return;
    if (Math.abs(window.scrollY - y) > 1) window.scrollTo(0, y);
    if (Math.abs(window.scrollY - y) <= 1) wantY.current = null;
  }, [items]);
  useLayoutEffect(() => followScroll(placeKey), [placeKey]);
  useEffect(() => {
    remember(placeKey, {
      selected: selectedItems(selection, items).map((i) => i.path),
      focus: selection.focus === null ? null : (items[selection.focus]?.path ?? null),
    });
  }, [placeKey, selection, items]);

  const previous = useRef(items);
  useEffect(() => {
    if (previous.current !== items) setSelection((s) => carrySelection(s, previous.current, items));
    previous.current = items;
  }, [items]);
  return [selection, setSelection] as const;
}
