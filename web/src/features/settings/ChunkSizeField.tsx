/**
 * The resumable-upload chunk size typed with its unit (docs/client.md §5): an edit is read after 1.5 s
 * without typing (or when the field is left) and shown back in the largest unit it fits; text
 * that is no size becomes 1 MB. 0 turns chunking off.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Field } from '../../components/Field';
import { chunkSizeFromText, formatChunkSize, parseChunkSize } from '../../lib/chunkSize';
import { CHUNK_SIZE_EDIT_DELAY_MS } from '../../lib/limits';

export function ChunkSizeField({ text, onText }: { text: string; onText: (text: string) => void }) {
  const { t } = useTranslation();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  function settle(value: string) {
    clearTimeout(timer.current);
    timer.current = undefined;
    onText(formatChunkSize(chunkSizeFromText(value)));
  }

  const invalid = parseChunkSize(text) === null;
  return (
    <Field
      label={t('settings.tus.chunkSize')}
      hint={
        <>
          {t('settings.tus.chunkSizeHint')}
          {invalid ? <span className="field__warning"> {t('settings.tus.chunkSizeInvalid')}</span> : null}
        </>
      }
    >
      {(control) => (
        <input
          {...control}
          className="input input--short"
          name="chunkSize"
          value={text}
          dir="ltr"
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => {
            const value = e.target.value;
            onText(value);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => settle(value), CHUNK_SIZE_EDIT_DELAY_MS);
          }}
          onBlur={() => {
            if (timer.current !== undefined) settle(text);
          }}
        />
      )}
    </Field>
  );
}
