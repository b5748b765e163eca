/**
 * New folder and New file (docs/client.md §2 "File browser", "Sidebar"): the name prompt, the
 * creation, the reloaded listing with the new item selected; a new file opens at once (text in the
 * editor) and closing it comes back to the folder with the file selected. The toolbar and the
 * sidebar both start it here.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { filesRoute } from '../../lib/paths';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { createResource } from './api';
import { askName } from './FilePrompts';
import { requestReselect } from './reselect';

/** Returns `create(folder, dir)`: asks a name, then makes a folder (`dir`) or a file in `folder` (ends in /). */
export function useNewItem(): (folder: string, dir: boolean) => Promise<void> {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  return useCallback(
    async (folder: string, dir: boolean) => {
      const name = await askName({
        title: t(dir ? 'files.actions.newFolder' : 'files.actions.newFile'),
        label: t(dir ? 'files.prompts.folderName' : 'files.prompts.fileName'),
        submit: t('files.prompts.create'),
      });
      if (!name) return;
      try {
        await createResource(`${folder}${name}${dir ? '/' : ''}`);
      } catch (err) {
        await showErrorPrompt(err instanceof Error ? err.message : String(err));
        return;
      }
      requestReselect(folder, [name]);
      if (!dir) void navigate(filesRoute(`${folder}${name}`), { state: { from: folder } });
      await client.invalidateQueries({ queryKey: queryKeys.resource(folder) });
    },
    [t, navigate, client],
  );
}
