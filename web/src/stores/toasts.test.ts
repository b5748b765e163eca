import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dismissToast, toast, useToasts } from './toasts';

describe('toasts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    useToasts.setState({ toasts: [] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('removes a success toast after 4 s', () => {
    toast.success('saved');
    vi.advanceTimersByTime(3_999);
    expect(useToasts.getState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(useToasts.getState().toasts).toHaveLength(0);
  });

  it('keeps an error toast until it is dismissed', () => {
    const id = toast.error('failed');
    vi.advanceTimersByTime(60_000);
    expect(useToasts.getState().toasts).toHaveLength(1);
    dismissToast(id);
    expect(useToasts.getState().toasts).toHaveLength(0);
  });

  it('shows at most 10, dropping the oldest', () => {
    for (let i = 0; i < 12; i++) toast.error(`e${i}`);
    const messages = useToasts.getState().toasts.map((t) => t.message);
    expect(messages).toHaveLength(10);
    expect(messages[0]).toBe('e2');
    expect(messages[9]).toBe('e11');
  });

  it('keeps a toast with an action ("Undo") for 10 s, long enough to reach its button', () => {
    const run = vi.fn();
    toast.success('Moved to trash', { label: 'Undo', run });
    vi.advanceTimersByTime(9_999);
    const [shown] = useToasts.getState().toasts;
    expect(shown?.action?.label).toBe('Undo');
    shown?.action?.run();
    expect(run).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(1);
    expect(useToasts.getState().toasts).toHaveLength(0);
  });
});
