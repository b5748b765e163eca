/** The compress prompt (docs/client.md §2 "Jobs panel"): the archive's name and format. */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { CompressFormat } from '@coffer/protocol';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { ARCHIVE_FORMATS } from '../files/api';
import { FormActions } from '../prompts/FormActions';
import { PromptCard } from '../prompts/PromptCard';

export interface CompressChoice {
  name: string;
  algo: CompressFormat;
}

/** `name` with the extension of `from` replaced by that of `to` (or added). */
export function withExtension(name: string, from: CompressFormat, to: CompressFormat): string {
  const old = ARCHIVE_FORMATS[from];
  const stem = name.toLowerCase().endsWith(old) ? name.slice(0, -old.length) : name;
  return stem + ARCHIVE_FORMATS[to];
}

export function askCompress(stem: string): Promise<CompressChoice | null> {
  return openPrompt<CompressChoice>(function CompressPrompt({ resolve, dismiss }: PromptProps<CompressChoice>) {
    const { t } = useTranslation();
    const [algo, setAlgo] = useState<CompressFormat>('zip');
    const [name, setName] = useState(`${stem}${ARCHIVE_FORMATS.zip}`);
    function handleSubmit(e: FormEvent) {
      e.preventDefault();
      const trimmed = name.trim();
      if (trimmed) resolve({ name: trimmed, algo });
      else dismiss();
    }
    return (
      <PromptCard title={t('files.actions.compress')}>
        <form className="prompt-form" onSubmit={handleSubmit}>
          <label className="field">
            <span className="field__label">{t('files.prompts.archiveName')}</span>
            <input className="input" data-autofocus value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label className="field">
            <span className="field__label">{t('files.prompts.format')}</span>
            <select
              className="input"
              value={algo}
              onChange={(e) => {
                const next = e.target.value as CompressFormat;
                setName((n) => withExtension(n, algo, next));
                setAlgo(next);
              }}
            >
              {Object.entries(ARCHIVE_FORMATS).map(([value, ext]) => (
                <option key={value} value={value}>
                  {ext}
                </option>
              ))}
            </select>
          </label>
          <FormActions onCancel={dismiss} submit={t('files.actions.compress')} />
        </form>
      </PromptCard>
    );
  });
}
