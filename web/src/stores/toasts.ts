/** Toasts (docs/client.md §2 "Notifications", §9): success fades after 4 s, errors stay until closed, at most 10. */
import { create } from 'zustand';
import { ACTION_TOAST_MS, MAX_TOASTS, SUCCESS_TOAST_MS } from '../lib/limits';

export type ToastKind = 'success' | 'error';

/** A button on the toast ("Undo"); pressing it closes the toast. */
export interface ToastAction {
  label: string;
  run: () => void;
}

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  action?: ToastAction;
}

interface ToastState {
  toasts: Toast[];
}

export const useToasts = create<ToastState>()(() => ({ toasts: [] }));

let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

export function dismissToast(id: number): void {
  const timer = timers.get(id);
  if (timer) clearTimeout(timer);
  timers.delete(id);
  useToasts.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function showToast(kind: ToastKind, message: string, action?: ToastAction): number {
  const id = nextId++;
  useToasts.setState((s) => {
    const toasts = [...s.toasts, { id, kind, message, ...(action ? { action } : {}) }];
    // Over the limit the oldest go first.
    for (const dropped of toasts.slice(0, Math.max(0, toasts.length - MAX_TOASTS))) {
      const timer = timers.get(dropped.id);
      if (timer) clearTimeout(timer);
      timers.delete(dropped.id);
    }
    return { toasts: toasts.slice(-MAX_TOASTS) };
  });
  if (kind === 'success')
    timers.set(
      id,
      setTimeout(() => dismissToast(id), action ? ACTION_TOAST_MS : SUCCESS_TOAST_MS),
    );
  return id;
}

export const toast = {
  success: (message: string, action?: ToastAction) => showToast('success', message, action),
  error: (message: string) => showToast('error', message),
};
