/**
 * Copies text (docs/client.md §8 "Copy link failure retries with permission, else shows the error"): the
 * asynchronous Clipboard API first; where it is missing or refused (plain HTTP on a LAN address
 * is not a secure context), the selection-based copy of a hidden text area.
 */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // Not allowed here: try the older way below.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  area.style.insetBlockStart = '0';
  // Inside the open dialog: focus may not leave a modal, and inert parts cannot be selected.
  const host = document.querySelector('[role="dialog"][aria-modal="true"]') ?? document.body;
  const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  host.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy'); // the only copy path outside secure contexts
  } finally {
    area.remove();
    before?.focus();
  }
  if (!ok) throw new Error('copy refused');
}
