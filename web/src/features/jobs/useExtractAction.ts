/**
 * "Extract here" (docs/client.md §2 "Jobs panel"): for one selected archive and a user with the
 * create permission, the server extracts it into the folder shown as a job; a name that is taken
 * keeps both (name(1).ext). The jobs panel shows the progress.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { startExtract } from '../../api/jobs';
import { queryKeys } from '../../api/queryKeys';
import { useSession } from '../../stores/session';
import type { FileAction } from '../files/actions';
import { showErrorPrompt } from '../prompts/MessagePrompt';

/** Names the server extracts (docs/api.md §18 E11). */
const EXTRACTABLE = /\.(zip|tar|tar\.gz|tgz|tar\.bz2|tbz2|tar\.xz|txz|tar\.zst|tar\.lz4|tar\.br|tar\.sz)$/i;

export function isExtractable(item: Pick<ResourceItem, 'name' | 'isDir'>): boolean {
  return !item.isDir && EXTRACTABLE.test(item.name);
}

export function useExtractAction(folder: string, selected: readonly ResourceItem[]): FileAction | null {
  const { t } = useTranslation();
  const client = useQueryClient();
  const canCreate = useSession((s) => s.user?.perm.create ?? false);
  const item = selected.length === 1 ? selected[0] : undefined;
  if (!canCreate || !item || !isExtractable(item)) return null;
  return {
    id: 'extract',
    label: t('files.actions.extract'),
    icon: 'folder',
    onRun: () => {
      startExtract(item.path, folder, 'rename').then(
        () => client.invalidateQueries({ queryKey: queryKeys.jobs() }),
        (err: unknown) => showErrorPrompt(err instanceof Error ? err.message : String(err)),
      );
    },
    selection: true,
    menu: true,
  };
}
