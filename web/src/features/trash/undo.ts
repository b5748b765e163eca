/**
 * After a delete with the trash on: the toast "Moved to trash" with Undo, which puts the items back
 * where they were (docs/api.md §22.2; a name taken meanwhile keeps both).
 */
import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { listTrash, restoreTrash } from '../../api/trash';
import { i18n } from '../../i18n';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { itemsToUndo } from './trash';

/** The trash's listings, the usage bar (it shows the trash's size) and the file listings. */
export function refreshAfterTrash(client: QueryClient): Promise<unknown> {
  return Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.trashes() }),
    client.invalidateQueries({ queryKey: ['usage'] }),
    client.invalidateQueries({ queryKey: queryKeys.resources() }),
  ]);
}

/** Restores the newest trashed item of each path, as this user deleted them. */
export async function undoDelete(paths: readonly string[], client: QueryClient): Promise<void> {
  const username = useSession.getState().user?.username ?? '';
  try {
    const { items } = await listTrash(false);
    for (const item of itemsToUndo(items, paths, username)) await restoreTrash(item.id, 'rename');
  } catch (err) {
    await showErrorPrompt(err instanceof Error ? err.message : String(err));
  } finally {
    await refreshAfterTrash(client);
  }
}

/** The toast after a delete into the trash. */
export function offerUndo(paths: readonly string[], client: QueryClient): void {
  const t = i18n.t.bind(i18n);
  void client.invalidateQueries({ queryKey: queryKeys.trashes() });
  void client.invalidateQueries({ queryKey: ['usage'] });
  toast.success(paths.length === 1 ? t('trash.movedOne') : t('trash.movedMany', { count: paths.length }), {
    label: t('trash.undo'),
    run: () => void undoDelete(paths, client),
  });
}
