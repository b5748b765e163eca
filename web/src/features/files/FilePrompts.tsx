/** The newFile, newDir, rename, delete and download prompts (spec §2 "Prompts", §5). */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { openPrompt, type PromptProps } from '../../stores/prompts';
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
    const { t } = useTranslation();
    const [value, setValue] = useState(initial);
    function handleSubmit(e: FormEvent) {
      e.preventDefault();
      const name = value.trim(); // §5: trimmed; empty does nothing
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
          <div className="prompt-form__actions">
            <button type="button" className="button" onClick={dismiss}>
              {t('files.prompts.cancel')}
            </button>
            <button type="submit" className="button button--primary">
              {submit}
            </button>
          </div>
        </form>
      </PromptCard>
    );
  };
}

export function askName(options: NamePromptOptions): Promise<string | null> {
  return openPrompt(namePrompt(options));
}

/** §5: singular or plural wording by count. Resolves true to delete. */
export function confirmDelete(names: string[]): Promise<true | null> {
  return openPrompt<true>(function DeletePrompt({ resolve, dismiss }) {
    const { t } = useTranslation();
    const text =
      names.length === 1
        ? t('files.prompts.deleteOne', { name: names[0] })
        : t('files.prompts.deleteMany', { count: names.length });
    return (
      <PromptCard
        title={t('files.actions.delete')}
        actions={
          <>
            <button type="button" className="button" data-autofocus onClick={dismiss}>
              {t('files.prompts.cancel')}
            </button>
            <button type="button" className="button button--danger" onClick={() => resolve(true)}>
              {t('files.actions.delete')}
            </button>
          </>
        }
      >
        <p dir="auto">{text}</p>
      </PromptCard>
    );
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
