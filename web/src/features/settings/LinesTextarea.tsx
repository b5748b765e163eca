/** A list of commands edited one per line (docs/client.md §5): blank lines dropped, what is typed kept. */
import { useListText } from './useListText';
import { formatLines, parseLines } from './words';

export function LinesTextarea({
  id,
  value,
  onChange,
  name,
}: {
  id: string;
  value: readonly string[];
  onChange: (lines: string[]) => void;
  name?: string;
}) {
  const [text, setText] = useListText(value, formatLines, parseLines, onChange);
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
      onChange={(e) => setText(e.target.value)}
    />
  );
}
