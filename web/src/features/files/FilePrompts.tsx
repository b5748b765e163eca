/** The newFile, newDir, rename, delete and download prompts (docs/client.md §2 "Prompts", §5). */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../../i18n';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { FormActions } from '../prompts/FormActions';
import { PromptCard } from '../prompts/PromptCard';
import { ARCHIVE_FORMATS, type ArchiveFormat } from './api';

interface NamePromptOptions {
  title: string;
  label: string;
  submit: string;
  initial?: string;
}

function namePrompt({ title, label, submit, initial = '' }: NamePromptOptions) {
  return function NamePrompt({ resolve, dismiss }: PromptProps<string>) {
    const [value, setValue] = useState(initial);
    function handleSubmit(e: FormEvent) {
      e.preventDefault();
      const name = value.trim(); // docs/client.md §5: trimmed; empty does nothing
      if (name) resolve(name);
      else dismiss();
    }
    return (
      <PromptCard title={title}>
        <form className="prompt-form" onSubmit={handleSubmit}>
          <label className="field">
            <span className="field__label">{label}</span>
            <input
              className="input"
              data-autofocus
              value={value}
              onChange={(e) => setValue(e.target.value)}
              onFocus={(e) => {
                // Select the name without its extension, as file managers do for rename.
                const dot = initial.lastIndexOf('.');
                e.currentTarget.setSelectionRange(0, dot > 0 ? dot : initial.length);
              }}
            />
          </label>
          <FormActions onCancel={dismiss} submit={submit} />
        </form>
      </PromptCard>
    );
  };
}

export function askName(options: NamePromptOptions): Promise<string | null> {
  return openPrompt(namePrompt(options));
}

/**
 * docs/client.md §5: singular or plural wording by count. Resolves true to delete. With the trash
 * on (docs/api.md §22) the items go there and can come back: "Move to trash"; with it off the
 * delete is final: "Delete forever".
 */
export function confirmDelete(names: string[], trash: boolean): Promise<true | null> {
  const t = i18n.t.bind(i18n);
  const one = names.length === 1;
  const action = trash ? t('trash.moveToTrash') : t('trash.deleteForever');
  return confirmDanger({
    title: action,
    text: trash
      ? one
        ? t('trash.moveOne', { name: names[0] })
        : t('trash.moveMany', { count: names.length })
      : one
        ? t('files.prompts.deleteOne', { name: names[0] })
        : t('files.prompts.deleteMany', { count: names.length }),
    cancel: t('files.prompts.cancel'),
    confirm: action,
  });
}

/** The download prompt: a choice of archive format. */
export function chooseArchiveFormat(): Promise<ArchiveFormat | null> {
  return openPrompt<ArchiveFormat>(function DownloadPrompt({ resolve }) {
    const { t } = useTranslation();
    return (
      <PromptCard title={t('files.actions.download')}>
        <div className="formats" role="group" aria-label={t('files.prompts.format')}>
          {Object.entries(ARCHIVE_FORMATS).map(([algo, ext], i) => (
            <button
              key={algo}
              type="button"
              className="button"
              data-autofocus={i === 0 ? true : undefined}
              onClick={() => resolve(algo as ArchiveFormat)}
            >
              {ext}
            </button>
          ))}
        </div>
      </PromptCard>
    );
  });
}
