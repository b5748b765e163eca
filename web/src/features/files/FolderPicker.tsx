/**
 * The move and copy prompts (docs/client.md §2 "Prompts", §5): browse folders from the current one, pick a
 * destination; "New folder" with the create permission. Move is disabled when the destination is
 * the current folder.
 */
import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { getResource, type Resource } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { naturalCompare } from '../../lib/sorting';
import { i18n } from '../../i18n';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { useSession } from '../../stores/session';
import { PromptCard } from '../prompts/PromptCard';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { createResource } from './api';
import { askName } from './FilePrompts';

export interface PickOptions {
  action: 'copy' | 'move';
  /** The folder the items are in (ends in `/`). */
  current: string;
}

function parentOf(folder: string): string | null {
  if (folder === '/') return null;
  const trimmed = folder.slice(0, -1);
  return trimmed.slice(0, trimmed.lastIndexOf('/') + 1) || '/';
}

function FolderPicker({ action, current, resolve, dismiss }: PickOptions & PromptProps<string>) {
  const { t } = useTranslation();
  const canCreate = useSession((s) => s.user?.perm.create ?? false);
  const [folder, setFolder] = useState(current);
  // Prompts render outside the shell's query provider: the folder is fetched here directly.
  const [listing, setListing] = useState<{ folder: string; data?: Resource; error?: string }>({ folder });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    getResource(folder, controller.signal).then(
      (data) => setListing({ folder, data }),
      (err: unknown) => {
        if (!controller.signal.aborted)
          setListing({ folder, error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => controller.abort();
  }, [folder, version]);
  const shown = listing.folder === folder ? listing : { folder };
  const dirs = (shown.data?.items ?? [])
    .filter((i) => i.isDir)
    .sort((a, b) => naturalCompare(a.name, b.name));
  const parent = parentOf(folder);
  const title = t(action === 'copy' ? 'files.actions.copy' : 'files.actions.move');

  async function newFolder() {
    const name = await askName({
      title: t('files.actions.newFolder'),
      label: t('files.prompts.folderName'),
      submit: t('files.prompts.create'),
    });
    if (!name) return;
    try {
      await createResource(`${folder}${name}/`);
      setVersion((v) => v + 1);
    } catch (err) {
      await showErrorPrompt(err instanceof Error ? err.message : String(err));
    }
  }

  return (
    <PromptCard
      title={title}
      actions={
        <>
          {canCreate ? (
            <button type="button" className="button" onClick={() => void newFolder()}>
              {t('files.actions.newFolder')}
            </button>
          ) : null}
          <button type="button" className="button" onClick={dismiss}>
            {t('files.prompts.cancel')}
          </button>
          <button
            type="button"
            className="button button--primary"
            disabled={action === 'move' && folder === current}
            onClick={() => resolve(folder)}
          >
            {title}
          </button>
        </>
      }
    >
      <p className="picker__where">
        <Trans
          i18nKey="files.prompts.destinationIs"
          values={{ path: folder }}
          components={{ path: <strong dir="auto" /> }}
        />
      </p>
      <ul className="picker" aria-label={t('files.prompts.destination')}>
        {parent !== null ? (
          <li>
            <button type="button" className="picker__item" data-autofocus onClick={() => setFolder(parent)}>
              <Icon name="folder" size={20} />
              <span>{t('files.prompts.parent')}</span>
            </button>
          </li>
        ) : null}
        {dirs.map((d) => (
          <li key={d.path}>
            <button type="button" className="picker__item" onClick={() => setFolder(`${folder}${d.name}/`)}>
              <Icon name="folder" size={20} />
              <span dir="auto">{d.name}</span>
            </button>
          </li>
        ))}
      </ul>
      {!shown.data && !shown.error ? <Spinner inline label={t('common.loading')} /> : null}
      {shown.error ? <p role="alert">{shown.error}</p> : null}
    </PromptCard>
  );
}

/** Resolves with the chosen destination folder (ends in `/`), or null. */
export function pickFolder(options: PickOptions): Promise<string | null> {
  return openPrompt<string>((props) => <FolderPicker {...props} {...options} />);
}

/**
 * The replace prompt: overwrite the existing items, or keep both by renaming the new ones.
 * Overwriting is offered only with the modify permission, which the server needs for it (docs/api.md §6.1).
 */
export async function askReplace(canOverwrite: boolean): Promise<'overwrite' | 'rename' | null> {
  const t = i18n.t.bind(i18n);
  const answer = await confirmDanger({
    title: t('files.prompts.replaceTitle'),
    text: t('files.prompts.replaceText'),
    cancel: t('files.prompts.cancel'),
    confirm: canOverwrite ? t('files.prompts.overwrite') : null,
    others: [{ answer: 'rename', label: t('files.prompts.keepBoth'), focus: true }],
  });
  return answer === true ? 'overwrite' : answer;
}
