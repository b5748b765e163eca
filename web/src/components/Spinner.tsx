/** A busy indicator with a text for screen readers. */
export function Spinner({ label, inline = false }: { label: string; inline?: boolean }) {
  return (
    <span className={inline ? 'spinner spinner--inline' : 'spinner'} role="status">
      <span className="spinner__ring" aria-hidden="true" />
      <span className={inline ? 'visually-hidden' : 'spinner__label'}>{label}</span>
    </span>
  );
}
