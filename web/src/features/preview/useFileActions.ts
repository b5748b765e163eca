/**
 * What the file screens (preview and editor) share: the parent listing for previous/next, close,
 * and the file browser's item actions (files/useItemActions.ts) applied to the file shown, which
 * a rename follows and a delete leaves. Leaving goes through `beforeLeave`, so the editor can ask
 * about unsaved changes first.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { getResource, type Resource, type ResourceItem } from '../../api/resources';
import { filesRoute, folderOf } from '../../lib/paths';
import { useItemActions } from '../files/useItemActions';
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
  const navigate = useNavigate();
  const location = useLocation();
  const folder = folderOf(file.path);
  const items = useItemActions(folder);
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

  const { rename: renameItem, remove: removeItems, download: downloadItems, info: showInfo, share: shareItem } = items;

  const rename = useCallback(async () => {
    if (!(await beforeLeave('navigate'))) return;
    const target = await renameItem(file);
    if (target) void navigate(filesRoute(target), { replace: true, state: location.state as unknown });
  }, [beforeLeave, renameItem, file, navigate, location.state]);

  const remove = useCallback(async () => {
    if (!(await removeItems([file]))) return;
    if (!(await beforeLeave('delete'))) return;
    if (from === folder) void navigate(-1);
    else void navigate(filesRoute(folder), { replace: true });
  }, [removeItems, file, beforeLeave, from, folder, navigate]);

  const download = useCallback(() => void downloadItems([file]), [downloadItems, file]);
  const info = useCallback(() => showInfo([file]), [showInfo, file]);
  const share = useCallback(() => shareItem(file), [shareItem, file]);
  const can = items.can(1);

  return {
    folder,
    neighbours,
    can: { download: can.download, rename: can.rename, delete: can.delete, share: can.share, modify: can.modify },
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
