/**
 * The text of a list edited as text (words on a line, commands one per line): what is typed stays
 * as typed while the list follows it; a new list from outside (reload, reset) replaces the text
 * unless the text already says it.
 */
import { useState } from 'react';

export function useListText(
  value: readonly string[],
  format: (list: readonly string[]) => string,
  parse: (text: string) => string[],
  onChange: (list: string[]) => void,
): [text: string, setText: (text: string) => void] {
  const [text, setText] = useState(() => format(value));
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (format(parse(text)) !== format(value)) setText(format(value));
  }
  return [
    text,
    (next: string) => {
      setText(next);
      onChange(parse(next));
    },
  ];
}
