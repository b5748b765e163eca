/**
 * A list of words edited as one line of text (spec §5: allowed commands and the shell prefix are
 * space-separated, blanks dropped). What is typed stays as typed; the list follows it.
 */
import { useState, type ReactNode } from 'react';
import { Field } from '../../components/Field';
import { formatWords, parseWords } from './words';

export function WordsInput({
  label,
  hint,
  value,
  onChange,
  name,
  placeholder,
}: {
  label: ReactNode;
  hint?: ReactNode;
  value: readonly string[];
  onChange: (words: string[]) => void;
  name?: string;
  placeholder?: string;
}) {
  const [text, setText] = useState(() => formatWords(value));
  // A new value from outside (reload, reset) replaces the text unless it is what the text says.
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (formatWords(parseWords(text)) !== formatWords(value)) setText(formatWords(value));
  }
  return (
    <Field label={label} hint={hint}>
      {(control) => (
        <input
          {...control}
          className="input"
          name={name}
          value={text}
          placeholder={placeholder}
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="off"
          dir="ltr"
          onChange={(e) => {
            setText(e.target.value);
            onChange(parseWords(e.target.value));
          }}
        />
      )}
    </Field>
  );
}
