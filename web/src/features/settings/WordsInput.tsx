/** A list of words edited as one line of text (docs/client.md §5: allowed commands and the shell prefix). */
import type { ReactNode } from 'react';
import { TextField } from '../../components/Field';
import { useListText } from './useListText';
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
  name: string;
  placeholder?: string;
}) {
  const [text, setText] = useListText(value, formatWords, parseWords, onChange);
  return (
    <TextField
      code
      label={label}
      hint={hint}
      name={name}
      placeholder={placeholder}
      value={text}
      onChange={setText}
    />
  );
}
