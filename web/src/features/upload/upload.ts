/**
 * Uploading into a folder (docs/client.md §2, §4): read the folder's current names, ask the replace prompt
 * when some already exist, then queue the jobs.
 */
import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { getResource } from '../../api/resources';
import { useSession } from '../../stores/session';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { conflicts, planUpload, type ConflictChoice, type UploadSource } from './plan';
import { enqueueUpload } from './store';
import { askUploadConflict } from './UploadPrompts';

/** Uploads `sources` into `folder` (ends in `/`). */
export async function uploadInto(
  folder: string,
  sources: UploadSource[],
  client: QueryClient,
): Promise<void> {
  if (sources.length === 0) return;
  let existing: Set<string>;
  try {
    const listing = await client.fetchQuery({
      queryKey: queryKeys.resource(folder),
      queryFn: ({ signal }) => getResource(folder, signal),
      staleTime: 0,
    });
    existing = new Set((listing.items ?? []).map((i) => i.name));
  } catch (err) {
    await showErrorPrompt(err instanceof Error ? err.message : String(err));
    return;
  }
  let choice: ConflictChoice = 'skip';
  const clash = conflicts(sources, existing);
  if (clash.length > 0) {
    const canReplace = useSession.getState().user?.perm.modify ?? false;
    const answer = await askUploadConflict(clash, canReplace);
    if (!answer) return;
    choice = answer;
  }
  const plan = planUpload(sources, folder, existing, choice);
  enqueueUpload(plan, folder, client);
}
