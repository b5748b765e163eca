/**
 * Copy and move (docs/client.md §4 "Paste", §5): from the copy and move prompts, a paste of the
 * clipboard, or items dragged onto a folder. Copying into the folder the items come from renames
 * silently; names already in any other destination ask overwrite or keep both.
 */
import { useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { getResource } from '../../api/resources';
import { folderOf } from '../../lib/paths';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { patchResource } from './api';
import { clearClipboard, useClipboard } from './clipboard';
import { askReplace, pickFolder } from './FolderPicker';
import { requestReselect, requestReselectNew } from './reselect';
import { trimSlash } from './selection';
import type { ItemActions } from './useItemActions';

/** An item on its way: where it is, and the name it keeps. */
export interface Moving {
  from: string;
  name: string;
}

/** `path`: the folder shown; `names`: the names listed in it. */
export function useTransfer(
  path: string,
  names: readonly string[],
  { perm, run }: Pick<ItemActions, 'perm' | 'run'>,
) {
  const client = useQueryClient();

  /**
   * docs/client.md §2: what arrived is selected in the destination (when the server picked the names: whatever
   * is new there since `before`), and the destination is selected when it is listed here.
   */
  function reselectAfterTransfer(dest: string, before: readonly string[] | null, done: string[]) {
    if (before) requestReselectNew(dest, before);
    else requestReselect(dest, done);
    const destPath = trimSlash(dest);
    if (dest !== path && folderOf(destPath) === path) requestReselect(path, [destPath.slice(path.length)]);
  }

  /** Copies or moves `moving` from folder `source` into `dest`; false when cancelled or failed. */
  async function transferTo(
    action: 'copy' | 'move',
    moving: readonly Moving[],
    source: string,
    dest: string,
  ) {
    let override = false;
    let rename = false;
    let before = names;
    // The destination, not the folder shown, is compared with the source: a paste always lands
    // in the folder shown, wherever the clipboard's items were copied.
    if (action === 'copy' && dest === source) rename = true;
    else {
      try {
        const target = await client.fetchQuery({
          queryKey: queryKeys.resource(dest),
          queryFn: ({ signal }) => getResource(dest, signal),
          staleTime: 0,
        });
        before = (target.items ?? []).map((i) => i.name);
        const existing = new Set(before);
        if (moving.some((m) => existing.has(m.name))) {
          const answer = await askReplace(perm?.modify ?? false);
          if (!answer) return false;
          override = answer === 'overwrite';
          rename = answer === 'rename';
        }
      } catch (err) {
        await showErrorPrompt(err instanceof Error ? err.message : String(err));
        return false;
      }
    }
    const done: string[] = [];
    return run(async () => {
      try {
        for (const m of moving) {
          await patchResource(action === 'copy' ? 'copy' : 'rename', m.from, `${dest}${m.name}`, {
            override,
            rename,
          });
          done.push(m.name);
        }
      } finally {
        if (done.length > 0) reselectAfterTransfer(dest, rename ? before : null, done);
        if (dest !== path) await client.invalidateQueries({ queryKey: queryKeys.resource(dest) });
      }
    });
  }

  /** The copy and move prompts: asks for the destination, then transfers. */
  async function pickAndTransfer(
    action: 'copy' | 'move',
    moving: readonly Moving[],
    beforeTransfer: () => void,
  ) {
    const dest = await pickFolder({ action, current: path });
    if (!dest) return;
    beforeTransfer();
    await transferTo(action, moving, path, dest);
  }

  /** Pastes the clipboard here: Ctrl+C copies, Ctrl+X moves (and empties the clipboard once done). */
  async function paste() {
    const clip = useClipboard.getState();
    if (!clip.key || clip.items.length === 0) return;
    if (clip.key === 'x' && clip.path === path) return; // moving onto itself changes nothing
    const done = await transferTo(clip.key === 'x' ? 'move' : 'copy', clip.items, clip.path, path);
    if (done && clip.key === 'x') clearClipboard();
  }

  return { transferTo, pickAndTransfer, paste };
}
