/** The clipboard of docs/client.md §3/§4: Ctrl/Cmd+C copies, Ctrl/Cmd+X cuts; a cut empties it after the paste. */
import { create } from 'zustand';

export interface Clipboard {
  /** c = copy, x = cut. */
  key: 'c' | 'x' | null;
  items: { from: string; name: string }[];
  /** The folder the items were taken from. */
  path: string;
}

export const useClipboard = create<Clipboard>()(() => ({ key: null, items: [], path: '/' }));

export function clearClipboard(): void {
  useClipboard.setState({ key: null, items: [], path: '/' });
}
