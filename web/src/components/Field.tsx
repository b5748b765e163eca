/**
 * A form field: label, the control (given the ids it must carry), an optional hint and an error
 * shown next to it. The hint and the error describe the control; an error marks it invalid.
 */
import { useId, type ReactNode } from 'react';
import { Icon } from './Icon';

export interface FieldControlProps {
  id: string;
  'aria-describedby'?: string;
  'aria-invalid'?: true;
}

export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  children: (control: FieldControlProps) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {children({
        id,
        'aria-describedby': describedBy || undefined,
        'aria-invalid': error ? true : undefined,
      })}
      {error ? <FieldError id={errorId} message={error} /> : null}
      {hint ? (
        <div id={hintId} className="field__hint">
          {hint}
        </div>
      ) : null}
    </div>
  );
}

export function FieldError({ id, message }: { id?: string; message: string }) {
  return (
    <p id={id} className="field__error">
      <Icon name="error" size={16} />
      <span>{message}</span>
    </p>
  );
}

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | null;
  name: string;
}

/**
 * A one-line text field. `code` is for paths, patterns and commands: left to right whatever the
 * page direction, no spelling or capital corrections.
 */
export function TextField({
  value,
  onChange,
  code = false,
  password = false,
  placeholder,
  disabled,
  autofocus = false,
  ...field
}: FieldProps & {
  value: string;
  onChange: (value: string) => void;
  code?: boolean;
  /** The user's current password: hidden as typed, offered by password managers. */
  password?: boolean;
  placeholder?: string;
  disabled?: boolean;
  /** Takes the focus when its prompt opens. */
  autofocus?: boolean;
}) {
  return (
    <Field label={field.label} hint={field.hint} error={field.error}>
      {(control) => (
        <input
          {...control}
          className="input"
          name={field.name}
          value={value}
          placeholder={placeholder}
          disabled={disabled}
          data-autofocus={autofocus ? true : undefined}
          type={password ? 'password' : 'text'}
          autoComplete={password ? 'current-password' : 'off'}
          dir={code ? 'ltr' : 'auto'}
          spellCheck={code ? false : undefined}
          autoCapitalize={code ? 'off' : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** A whole number typed as text (checked by the form, which shows the error). */
export function NumberField({
  value,
  onChange,
  min,
  max,
  ...field
}: FieldProps & { value: string; onChange: (value: string) => void; min?: number; max?: number }) {
  return (
    <Field label={field.label} hint={field.hint} error={field.error}>
      {(control) => (
        <input
          {...control}
          className="input input--number"
          type="number"
          name={field.name}
          inputMode="numeric"
          min={min}
          max={max}
          step={1}
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** A select over `options` ([value, label]); a current value not among them stays selectable as is. */
export function SelectField({
  value,
  onChange,
  options,
  disabled,
  ...field
}: FieldProps & {
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [value: string, label: string, lang?: string])[];
  disabled?: boolean;
}) {
  const known = options.some(([v]) => v === value);
  return (
    <Field label={field.label} hint={field.hint} error={field.error}>
      {(control) => (
        <select
          {...control}
          className="input"
          name={field.name}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        >
          {known ? null : <option value={value}>{value || '—'}</option>}
          {options.map(([v, label, lang]) => (
            <option key={v} value={v} lang={lang}>
              {label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
