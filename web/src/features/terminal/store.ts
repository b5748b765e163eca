/**
 * The shell panel's client state (docs/client.md §2 "Shell panel"): shown or hidden, its height, the output
 * of past commands and the history. It outlives the panel being hidden and the folder changing;
 * signing out or in as someone else forgets it. At most one command runs at a time.
 */
import { create } from 'zustand';
import { useSession } from '../../stores/session';
import { cleanLine } from './ansi';
import { remember } from './history';
import { NOT_ALLOWED, startCommand, type EndKind } from './socket';

/** A command entry keeps at most this many output lines; older ones are dropped and counted. */
export const MAX_LINES = 5_000;
const HEIGHT_KEY = 'terminal-height';

export type EntryEnd = EndKind | 'stopped' | 'notAllowed';

export interface Entry {
  id: number;
  command: string;
  folder: string;
  lines: string[];
  /** Output lines dropped from the start to keep the entry bounded. */
  dropped: number;
  /** null while running. */
  end: EntryEnd | null;
}

interface TerminalState {
  open: boolean;
  /** em; null = default. */
  height: number | null;
  entries: Entry[];
  history: string[];
  running: boolean;
}

function storedHeight(): number | null {
  try {
    const raw = localStorage.getItem(HEIGHT_KEY);
    const value = raw === null ? Number.NaN : Number(raw);
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

export const useTerminal = create<TerminalState>()(() => ({
  open: false,
  height: storedHeight(),
  entries: [],
  history: [],
  running: false,
}));

let stopRunning: (() => void) | null = null;
let nextId = 1;
/** Lines received since the last paint, applied together (one render per frame, not per line). */
let pending: string[] = [];
let flushScheduled = false;

function updateLast(change: (entry: Entry) => Entry): void {
  useTerminal.setState((s) => {
    const last = s.entries.at(-1);
    if (!last) return s;
    return { entries: [...s.entries.slice(0, -1), change(last)] };
  });
}

function flush(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  const lines = pending;
  pending = [];
  updateLast((e) => {
    const all = e.lines.concat(lines);
    const over = Math.max(0, all.length - MAX_LINES);
    return { ...e, lines: over ? all.slice(over) : all, dropped: e.dropped + over };
  });
}

function scheduleFlush(): void {
  if (flushScheduled) return;
  flushScheduled = true;
  requestAnimationFrame(flush);
}

/** The note for an ended command; the server's refusal text becomes a translated note. */
function finalEnd(kind: EndKind, lines: readonly string[]): EntryEnd {
  if (kind === 'refused' && lines.length === 1 && lines[0] === NOT_ALLOWED) return 'notAllowed';
  return kind;
}

function finish(kind: EndKind | 'stopped'): void {
  flush();
  stopRunning = null;
  updateLast((e) => {
    const end = kind === 'stopped' ? kind : finalEnd(kind, e.lines);
    return { ...e, end, lines: end === 'notAllowed' ? [] : e.lines };
  });
  useTerminal.setState({ running: false });
}

/** Runs a line typed in the panel: "clear" and "exit" act here, anything else on the server. */
export function submitLine(line: string, folder: string): void {
  const command = line.trim();
  const state = useTerminal.getState();
  if (command === '' || state.running) return; // docs/client.md §2: empty input is ignored; one command at a time
  useTerminal.setState({ history: remember(state.history, command) });
  if (command === 'clear') {
    useTerminal.setState({ entries: [] });
    return;
  }
  if (command === 'exit') {
    hideTerminal();
    return;
  }
  const entry: Entry = { id: nextId++, command, folder, lines: [], dropped: 0, end: null };
  useTerminal.setState((s) => ({ entries: [...s.entries, entry], running: true }));
  stopRunning = startCommand(folder, command, {
    onLine(text) {
      pending.push(cleanLine(text));
      scheduleFlush();
    },
    onEnd: finish,
  });
}

/** Stops the running command, if any (closing its socket ends it on the server). */
export function stopCommand(): void {
  if (!stopRunning) return;
  stopRunning();
  finish('stopped');
}

export function toggleTerminal(): void {
  if (useTerminal.getState().open) hideTerminal();
  else useTerminal.setState({ open: true });
}

export function hideTerminal(): void {
  stopCommand();
  useTerminal.setState({ open: false });
}

export function setTerminalHeight(em: number): void {
  useTerminal.setState({ height: em });
  try {
    localStorage.setItem(HEIGHT_KEY, String(Math.round(em * 100) / 100));
  } catch {
    // Storage full or blocked: the height still applies for this visit.
  }
}

// Another user (or none) must never see this user's commands and output.
useSession.subscribe((s, prev) => {
  if (s.user?.id === prev.user?.id && s.user?.username === prev.user?.username) return;
  stopCommand();
  pending = [];
  useTerminal.setState({ open: false, entries: [], history: [], running: false });
});

// Leaving the page ends the command with it.
window.addEventListener('pagehide', stopCommand);
