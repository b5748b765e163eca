/** Whether the window is in the narrow (phone) layout of docs/client.md §9: 736 px or less, as the CSS. */
import { useSyncExternalStore } from 'react';
import { NARROW_BREAKPOINT_PX } from './limits';

const QUERY = `(max-width: ${NARROW_BREAKPOINT_PX}px)`;
const media = typeof window.matchMedia === 'function' ? window.matchMedia(QUERY) : null;

function subscribe(onChange: () => void): () => void {
  media?.addEventListener('change', onChange);
  return () => media?.removeEventListener('change', onChange);
}

export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => media?.matches ?? false);
}
