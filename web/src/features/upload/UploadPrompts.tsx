/**
 * The upload prompt (file or folder), the replace prompt for uploads (names already in the target
 * folder) and the abort confirmation (docs/client.md §2 "Prompts", "Upload progress panel", §4).
 */
import { useRef, type ChangeEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { i18n } from '../../i18n';
import { openPrompt } from '../../stores/prompts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { PromptCard } from '../prompts/PromptCard';
import { sourcesFromFiles, type ConflictChoice, type UploadSource } from './plan';
import './upload.css';

/** Resolves with the chosen files (a folder's keep their relative paths), or null. */
export function chooseUpload(): Promise<UploadSource[] | null> {
  return openPrompt<UploadSource[]>(function UploadPrompt({ resolve, dismiss }) {
    const { t } = useTranslation();
    const files = useRef<HTMLInputElement>(null);
    const folder = useRef<HTMLInputElement>(null);
    function handleChange(e: ChangeEvent<HTMLInputElement>) {
      const chosen = e.currentTarget.files;
      if (chosen && chosen.length > 0) resolve(sourcesFromFiles(chosen));
    }
    return (
      <PromptCard
        title={t('upload.prompt.title')}
        actions={
          <button type="button" className="button" onClick={dismiss}>
            {t('files.prompts.cancel')}
          </button>
        }
      >
        <p>{t('upload.prompt.text')}</p>
        <div className="upload-choice">
          <button
            type="button"
            className="upload-choice__button"
            data-autofocus
            onClick={() => files.current?.click()}
          >
            <Icon name="upload" size={28} />
            <span>{t('upload.prompt.files')}</span>
          </button>
          <button type="button" className="upload-choice__button" onClick={() => folder.current?.click()}>
            <Icon name="folderUpload" size={28} />
            <span>{t('upload.prompt.folder')}</span>
          </button>
        </div>
        <input ref={files} type="file" multiple hidden onChange={handleChange} data-testid="upload-files" />
        <input
          // React has no prop for it: a folder picker whose files carry their relative paths.
          ref={(el) => {
            el?.setAttribute('webkitdirectory', '');
            folder.current = el;
          }}
          type="file"
          hidden
          onChange={handleChange}
          data-testid="upload-folder"
        />
      </PromptCard>
    );
  });
}

const SHOWN_NAMES = 5;

/**
 * docs/client.md §4: uploading names that exist asks what to do: skip them, keep both (the new ones get a free
 * name) or replace them (only with the modify permission, which overwriting needs).
 */
export async function askUploadConflict(
  names: readonly string[],
  canReplace: boolean,
): Promise<ConflictChoice | null> {
  const t = i18n.t.bind(i18n);
  const rest = names.length - SHOWN_NAMES;
  const answer = await confirmDanger({
    wide: true,
    title: t('upload.conflict.title'),
    text: t('upload.conflict.text'),
    details: (
      <ul className="upload-conflicts">
        {names.slice(0, SHOWN_NAMES).map((n) => (
          <li key={n} dir="auto">
            {n}
          </li>
        ))}
        {rest > 0 ? <li>{t('upload.conflict.more', { count: rest })}</li> : null}
      </ul>
    ),
    cancel: t('files.prompts.cancel'),
    confirm: canReplace ? t('upload.conflict.replace') : null,
    others: [
      { answer: 'skip', label: t('upload.conflict.skip') },
      { answer: 'rename', label: t('files.prompts.keepBoth'), focus: true },
    ],
  });
  return answer === true ? 'replace' : answer;
}

/** Resolves true when the user confirms aborting every upload. */
export function confirmAbort(): Promise<true | null> {
  const t = i18n.t.bind(i18n);
  return confirmDanger({
    title: t('upload.abortTitle'),
    text: t('upload.abortUpload'),
    cancel: t('upload.keepUploading'),
    confirm: t('upload.abort'),
  });
}
