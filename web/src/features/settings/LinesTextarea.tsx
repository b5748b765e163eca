/** A list of commands edited one per line (spec §5): blank lines dropped, what is typed kept. */
import { useState } from 'react';
import { formatLines, parseLines } from './words';

export function LinesTextarea({
  id,
  value,
  onChange,
  name,
  describedBy,
}: {
  id: string;
  value: readonly string[];
  onChange: (lines: string[]) => void;
  name?: string;
  describedBy?: string;
}) {
  const [text, setText] = useState(() => formatLines(value));
  const [seen, setSeen] = useState(value);
  if (seen !== value) {
    setSeen(value);
    if (formatLines(parseLines(text)) !== formatLines(value)) setText(formatLines(value));
  }
  return (
    <textarea
      id={id}
      className="input textarea"
      name={name}
      rows={Math.min(8, Math.max(3, text.split('\n').length + 1))}
      value={text}
      spellCheck={false}
      autoCapitalize="off"
      autoComplete="off"
      dir="ltr"
      aria-describedby={describedBy}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseLines(e.target.value));
      }}
    />
  );
}
