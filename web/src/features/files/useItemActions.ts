/**
 * What the file browser and the file screens (preview, editor) do to items of one folder: rename,
 * delete, download, info and share, with the user's permissions, the prompts of docs/client.md §5
 * and its error handling (docs/client.md §8: a failure shows an error prompt; a failed delete
 * reloads the folder).
 * Each screen adds what is its own: the browser its selection, a file screen leaving the file.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import type { Resource, ResourceItem } from '../../api/resources';
import { config } from '../../config';
import { triggerDownload } from '../../lib/download';
import { useSession } from '../../stores/session';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { openShare } from '../share/SharePrompt';
import { offerUndo } from '../trash/undo';
import { archiveUrl, deleteResource, patchResource, rawUrl } from './api';
import { askName, chooseArchiveFormat, confirmDelete } from './FilePrompts';
import { showInfo } from './InfoPrompt';

/** `folder`: the folder the items are in, ending in `/`. */
export function useItemActions(folder: string) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const perm = useSession((s) => s.user?.perm);
  const canDownload = perm?.download ?? false;

  const reload = useCallback(
    () => client.invalidateQueries({ queryKey: queryKeys.resource(folder) }),
    [client, folder],
  );

  /**
   * Runs a change on the server, then reloads the folder; a failure shows the error prompt instead
   * (after a reload with `reloadOnError`). True when it went through.
   */
  const run = useCallback(
    async (action: () => Promise<unknown>, reloadOnError = false): Promise<boolean> => {
      try {
        await action();
      } catch (err) {
        if (reloadOnError) await reload();
        await showErrorPrompt(err instanceof Error ? err.message : String(err));
        return false;
      }
      await reload();
      return true;
    },
    [reload],
  );

  /** What the user may do with `count` items of this folder. */
  const can = useCallback(
    (count: number) => ({
      create: perm?.create ?? false,
      modify: perm?.modify ?? false,
      rename: (perm?.rename ?? false) && count === 1,
      // docs/client.md §6: sharing needs the share and download permissions.
      share: (perm?.share ?? false) && canDownload && count === 1,
      delete: (perm?.delete ?? false) && count > 0,
      download: canDownload,
      copy: (perm?.create ?? false) && count > 0,
      move: (perm?.rename ?? false) && count > 0,
    }),
    [perm, canDownload],
  );

  /** Asks for a new name and renames; the item's new path, or null (cancelled, same name, failed). */
  const rename = useCallback(
    async (item: ResourceItem): Promise<string | null> => {
      const name = await askName({
        title: t('files.actions.rename'),
        label: t('files.prompts.newName'),
        submit: t('files.prompts.save'),
        initial: item.name,
      });
      if (!name || name === item.name) return null;
      const target = `${folder}${name}`;
      return (await run(() => patchResource('rename', item.path, target))) ? target : null;
    },
    [t, folder, run],
  );

  /**
   * Asks, then deletes; true once they are gone. `confirmed` runs between the answer and the
   * deletion (the browser drops its selection there).
   */
  const remove = useCallback(
    async (items: readonly ResourceItem[], confirmed?: () => void): Promise<boolean> => {
      const trash = config.TrashDays > 0;
      if (items.length === 0 || !(await confirmDelete(items.map((i) => i.name), trash))) return false;
      confirmed?.();
      const done = await run(() => Promise.all(items.map((i) => deleteResource(i.path))), true);
      if (done && trash) offerUndo(items.map((i) => i.path), client);
      return done;
    },
    [run, client],
  );

  /** One file downloads as it is; several items, a folder or none (the whole folder) as an archive. */
  const download = useCallback(
    async (items: readonly ResourceItem[]) => {
      const only = items[0];
      if (items.length === 1 && only && !only.isDir) {
        triggerDownload(rawUrl(only.path));
        return;
      }
      const algo = await chooseArchiveFormat();
      if (!algo) return;
      triggerDownload(
        archiveUrl(
          folder,
          items.map((i) => i.name),
          algo,
        ),
      );
    },
    [folder],
  );

  const info = useCallback(
    (items: readonly (ResourceItem | Resource)[]) => void showInfo(items, { canDownload }),
    [canDownload],
  );
  const share = useCallback((item: ResourceItem) => void openShare(item), []);

  return { perm, reload, run, can, rename, remove, download, info, share };
}

export type ItemActions = ReturnType<typeof useItemActions>;
