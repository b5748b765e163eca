/** A labelled checkbox with an optional hint under the label. */
import { useId, type ReactNode } from 'react';

export function Checkbox({
  label,
  checked,
  onChange,
  disabled,
  hint,
  name,
}: {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  hint?: ReactNode;
  name?: string;
}) {
  const hintId = useId();
  return (
    <div className="check">
      <label className="check__label">
        <input
          type="checkbox"
          className="check__box"
          name={name}
          checked={checked}
          disabled={disabled}
          aria-describedby={hint ? hintId : undefined}
          onChange={(e) => onChange(e.target.checked)}
        />
        <span>{label}</span>
      </label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
