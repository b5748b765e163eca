/** The toolbar's Upload action (docs/client.md §2 header; create permission): the upload prompt, then the upload. */
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../stores/session';
import type { FileAction } from '../files/actions';
import { uploadInto } from './upload';
import { chooseUpload } from './UploadPrompts';

/** Upload into `folder` (ends in `/`); null without the create permission. */
export function useUploadAction(folder: string): FileAction | null {
  const { t } = useTranslation();
  const client = useQueryClient();
  const canCreate = useSession((s) => s.user?.perm.create ?? false);
  if (!canCreate) return null;
  return {
    id: 'upload',
    label: t('upload.action'),
    icon: 'upload',
    onRun: () => {
      void chooseUpload().then((sources) => (sources ? uploadInto(folder, sources, client) : undefined));
    },
  };
}
