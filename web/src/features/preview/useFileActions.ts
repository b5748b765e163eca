/**
 * What the file screens (preview and editor) share: the parent listing for previous/next, and
 * close, download, rename and delete with the user's permissions. Leaving goes through
 * `beforeLeave`, so the editor can ask about unsaved changes first.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { getResource, type Resource, type ResourceItem } from '../../api/resources';
import { triggerDownload } from '../../lib/download';
import { filesRoute, folderOf } from '../../lib/paths';
import { useSession } from '../../stores/session';
import { deleteResource, patchResource, rawUrl } from '../files/api';
import { askName, confirmDelete } from '../files/FilePrompts';
import { showInfo } from '../files/InfoPrompt';
import { openShare } from '../share/SharePrompt';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { fileNeighbours } from './neighbours';

/** Why the screen is about to be left: deleting discards any unsaved text anyway. */
export type LeaveReason = 'navigate' | 'delete';

/** Router state of a file opened from its folder's listing: closing can then simply go back. */
export interface OpenedFrom {
  from: string;
}

function openedFrom(state: unknown): string | null {
  const from = (state as Partial<OpenedFrom> | null)?.from;
  return typeof from === 'string' ? from : null;
}

export function useFileActions(file: Resource, beforeLeave: (reason: LeaveReason) => Promise<boolean>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const client = useQueryClient();
  const perm = useSession((s) => s.user?.perm);
  const folder = folderOf(file.path);
  const listing = useQuery({
    queryKey: queryKeys.resource(folder),
    queryFn: ({ signal }) => getResource(folder, signal),
  });
  const neighbours = useMemo(() => fileNeighbours(listing.data, file.path), [listing.data, file.path]);
  const from = openedFrom(location.state);

  const close = useCallback(async () => {
    if (!(await beforeLeave('navigate'))) return;
    // Back to the listing it was opened from keeps the history clean; otherwise open the folder.
    if (from === folder) void navigate(-1);
    else void navigate(filesRoute(folder));
  }, [beforeLeave, from, folder, navigate]);

  const goTo = useCallback(
    async (item: ResourceItem | null) => {
      if (!item || !(await beforeLeave('navigate'))) return;
      // Stepping through a folder replaces the entry: back still returns to the folder.
      void navigate(filesRoute(item.path), { replace: true, state: location.state as unknown });
    },
    [beforeLeave, navigate, location.state],
  );

  const reloadFolder = useCallback(
    () => client.invalidateQueries({ queryKey: queryKeys.resource(folder) }),
    [client, folder],
  );

  const rename = useCallback(async () => {
    if (!(await beforeLeave('navigate'))) return;
    const name = await askName({
      title: t('files.actions.rename'),
      label: t('files.prompts.newName'),
      submit: t('files.prompts.save'),
      initial: file.name,
    });
    if (!name || name === file.name) return;
    const target = `${folder}${name}`;
    try {
      await patchResource('rename', file.path, target);
    } catch (err) {
      await showErrorPrompt(err instanceof Error ? err.message : String(err));
      return;
    }
    await reloadFolder();
    void navigate(filesRoute(target), { replace: true, state: location.state as unknown });
  }, [beforeLeave, t, file.name, file.path, folder, reloadFolder, navigate, location.state]);

  const remove = useCallback(async () => {
    if (!(await confirmDelete([file.name]))) return;
    try {
      await deleteResource(file.path);
    } catch (err) {
      // spec §8: a failed delete shows an error prompt and reloads the listing.
      await reloadFolder();
      await showErrorPrompt(err instanceof Error ? err.message : String(err));
      return;
    }
    await reloadFolder();
    if (!(await beforeLeave('delete'))) return;
    if (from === folder) void navigate(-1);
    else void navigate(filesRoute(folder), { replace: true });
  }, [file.name, file.path, reloadFolder, beforeLeave, from, folder, navigate]);

  const download = useCallback(() => triggerDownload(rawUrl(file.path)), [file.path]);
  const canDownload = perm?.download ?? false;
  const info = useCallback(() => void showInfo([file], { canDownload }), [file, canDownload]);
  const share = useCallback(() => void openShare(file), [file]);

  return {
    folder,
    neighbours,
    can: {
      download: canDownload,
      rename: perm?.rename ?? false,
      delete: perm?.delete ?? false,
      // spec §6: sharing needs the share and download permissions.
      share: (perm?.share ?? false) && canDownload,
      modify: perm?.modify ?? false,
    },
    close,
    goTo,
    rename,
    remove,
    download,
    info,
    share,
  };
}

export type FileActions = ReturnType<typeof useFileActions>;
