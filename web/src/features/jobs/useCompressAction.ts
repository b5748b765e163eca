/**
 * "Compress" (docs/client.md §2 "Jobs panel"): for a selection and a user with the create and
 * download permissions, asks the archive's name and format, then the server makes the archive in
 * the folder shown as a job. The jobs panel shows it and reloads the listing when it ends.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources';
import { startCompress } from '../../api/jobs';
import { queryKeys } from '../../api/queryKeys';
import { useSession } from '../../stores/session';
import type { FileAction } from '../files/actions';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { askCompress } from './CompressPrompt';

/** The archive's name without extension: the one item's name (less its extension), else the folder's. */
export function archiveStem(folder: string, selected: readonly Pick<ResourceItem, 'name' | 'isDir'>[]): string {
  const only = selected.length === 1 ? selected[0] : undefined;
  if (only) return only.isDir || only.name.lastIndexOf('.') <= 0 ? only.name : only.name.slice(0, only.name.lastIndexOf('.'));
  return folder.split('/').filter(Boolean).at(-1) ?? 'archive';
}

export function useCompressAction(folder: string, selected: readonly ResourceItem[]): FileAction | null {
  const { t } = useTranslation();
  const client = useQueryClient();
  const allowed = useSession((s) => (s.user?.perm.create && s.user.perm.download) ?? false);
  if (!allowed || selected.length === 0) return null;
  return {
    id: 'compress',
    label: t('files.actions.compress'),
    icon: 'archive',
    onRun: () => {
      void (async () => {
        const choice = await askCompress(archiveStem(folder, selected));
        if (!choice) return;
        try {
          await startCompress(folder, selected.map((i) => i.name), folder, choice.name, choice.algo);
          await client.invalidateQueries({ queryKey: queryKeys.jobs() });
        } catch (err) {
          await showErrorPrompt(err instanceof Error ? err.message : String(err));
        }
      })();
    },
    selection: true,
    menu: true,
  };
}
