/**
 * A big folder's first rows while the rest of its listing is still arriving (issue 9: the first
 * rows of a 100,000-entry folder within 1.5 s). Only a name order is shown early: the server sends
 * it in the order the client shows it (folders first, names in the user's direction), so rows
 * that are on screen stay where they are when the rest comes in.
 */
import { create } from 'zustand';
import type { ItemsListener, Resource } from '../../api/resources';
import { sortingFrom } from '../../lib/sorting';
import { useSession } from '../../stores/session';

/** Shown from this many items on (a screenful and more), then each time the count has doubled. */
export const FIRST_ROWS = 200;

interface Partial {
  path: string;
  /** Whose listing it is: never shown to anyone else. */
  userId: number | undefined;
  folder: Resource;
  /** The load that published it (a later load of the same path replaces it). */
  load: object;
}

const usePartial = create<{ partial: Partial | null }>(() => ({ partial: null }));

// Signing out (or in as someone else) drops it.
useSession.subscribe((state, before) => {
  if (!state.user || state.user.id !== before.user?.id) clearPartial();
});

/** The folder at `path` as far as it has arrived, while its listing is loading; else null. */
export function usePartialListing(path: string): Resource | null {
  const userId = useSession((s) => s.user?.id);
  return usePartial((s) => (s.partial?.path === path && s.partial.userId === userId ? s.partial.folder : null));
}

/** Forgets the items shown early (the whole answer is on screen, or the session ended). */
export function clearPartial(): void {
  if (usePartial.getState().partial) usePartial.setState({ partial: null });
}

/**
 * What one load of `path` hands its items to, and what it calls when it failed (error or abort).
 * Publishing each time the count doubles keeps the re-sorting of what is shown linear in the
 * folder's size. A load that succeeds leaves its last items in place until the page shows the
 * answer (`clearPartial`): taking them away sooner would flash the spinner in between. The next
 * load starts by dropping them.
 */
export function partialPublisher(path: string): { onItems: ItemsListener; failed: () => void } {
  const load = {};
  let shown = 0;
  usePartial.setState({ partial: null });
  return {
    onItems(head, items) {
      if (items.length < Math.max(FIRST_ROWS, 2 * shown)) return;
      if (!head.sorting || sortingFrom(head.sorting).by !== 'name') return;
      shown = items.length;
      const userId = useSession.getState().user?.id;
      usePartial.setState({ partial: { path, userId, load, folder: { ...head, items: items.slice() } } });
    },
    failed() {
      if (usePartial.getState().partial?.load === load) usePartial.setState({ partial: null });
    },
  };
}
