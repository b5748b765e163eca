/**
 * Where the user was in a folder, per history entry: Back and Forward return to the same scroll
 * position with the same items selected; a new visit starts at the top. Kept in session storage
 * (as the browser keeps history entries across a reload), at most `MAX_ENTRIES`.
 */
import { SCROLL_THROTTLE_MS } from '../../lib/limits';
import { throttle } from '../../lib/throttle';

export interface Place {
  /** window.scrollY */
  y: number;
  /** Paths of the selected items. */
  selected: string[];
  /** Path of the item the keyboard was on. */
  focus: string | null;
}

const STORAGE_KEY = 'coffer.files.places';
const MAX_ENTRIES = 100;

let places: Map<string, Place> | null = null;
let saveTimer: ReturnType<typeof setTimeout> | null = null;

function load(): Map<string, Place> {
  if (places) return places;
  places = new Map();
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as unknown;
    if (Array.isArray(saved)) {
      for (const entry of saved as [string, Place][]) places.set(entry[0], entry[1]);
    }
  } catch {
    // An unreadable entry only loses the remembered positions.
  }
  return places;
}

function save(): void {
  saveTimer = null;
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...load()]));
  } catch {
    // Storage full or disabled: positions are still remembered for this page's life.
  }
}

/**
 * Keeps history entry `key`'s scroll position while the window scrolls, at most every 100 ms
 * (docs/client.md §9 scroll throttle); the returned function stops it and keeps the last position.
 */
export function followScroll(key: string): () => void {
  const save = throttle((y: number) => remember(key, { y }), SCROLL_THROTTLE_MS);
  const handleScroll = () => save(window.scrollY);
  window.addEventListener('scroll', handleScroll, { passive: true });
  return () => {
    window.removeEventListener('scroll', handleScroll);
    save.flush();
  };
}

/** Updates what is remembered for history entry `key`. */
export function remember(key: string, change: Partial<Place>): void {
  const map = load();
  const before = map.get(key) ?? { y: 0, selected: [], focus: null };
  map.delete(key); // re-inserted last: the oldest entries go first
  map.set(key, { ...before, ...change });
  while (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as string);
  saveTimer ??= setTimeout(save, 250);
}

export function recall(key: string): Place | undefined {
  return load().get(key);
}

/** Forgets everything (tests; a sign-out). */
export function forgetPlaces(): void {
  places = new Map();
  save();
}
