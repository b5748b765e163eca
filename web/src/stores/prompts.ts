/**
 * The prompt stack (docs/client.md §2 "Prompts", §7): `openPrompt` pushes a modal card and
 * resolves with its answer, or null when it is dismissed (Escape, close button). The top card is
 * the current one; cards below stay open until the top one closes.
 */
import type { ComponentType } from 'react';
import { create } from 'zustand';

/** What a prompt component receives: resolve with an answer, or dismiss (→ null). */
export interface PromptProps<R> {
  resolve: (answer: R) => void;
  dismiss: () => void;
}

interface Entry {
  id: number;
  render: ComponentType<PromptProps<unknown>>;
  settle: (answer: unknown) => void;
}

interface PromptState {
  stack: Entry[];
}

export const usePrompts = create<PromptState>()(() => ({ stack: [] }));

let nextId = 1;

export function openPrompt<R>(component: ComponentType<PromptProps<R>>): Promise<R | null> {
  return new Promise<R | null>((resolvePromise) => {
    const id = nextId++;
    const settle = (answer: unknown) => {
      usePrompts.setState((s) => ({ stack: s.stack.filter((e) => e.id !== id) }));
      resolvePromise(answer as R | null);
    };
    const entry: Entry = { id, render: component as ComponentType<PromptProps<unknown>>, settle };
    usePrompts.setState((s) => ({ stack: [...s.stack, entry] }));
  });
}

/** Dismisses the current (top) prompt; false when none is open. */
export function closeTopPrompt(): boolean {
  const top = usePrompts.getState().stack.at(-1);
  if (!top) return false;
  top.settle(null);
  return true;
}

/** Dismisses every prompt (leaving the page, logout, end of the session). */
export function closeAllPrompts(): void {
  for (const entry of [...usePrompts.getState().stack].reverse()) entry.settle(null);
}
