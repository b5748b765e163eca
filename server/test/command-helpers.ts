/** Helpers for the command socket and hook tests: a real WebSocket client and a process probe. */
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import type { TestServer } from './harness.js';

/** A server under test: in this process (harness.ts) or a built CLI process (cli-process.ts). */
export type Served = Pick<TestServer, 'url'>;

export interface Closed {
  code: number;
  reason: string;
}

export interface CommandSocket {
  ws: WebSocket;
  messages: string[];
  closed: Promise<Closed>;
  /** Resolves once `n` messages arrived (or the socket closed first). */
  waitForMessages(n: number): Promise<string[]>;
}

export interface OpenOptions {
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

/** Answer to an upgrade the server refused with a plain HTTP status. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with ${status}`);
  }
}

export function wsUrl(srv: Served, path: string): string {
  return srv.url.replace(/^http/, 'ws') + path;
}

/** Opens `/api/command{path}`; rejects with UpgradeRefused when the server answers without upgrading. */
export function openCommand(srv: Served, path: string, opts: OpenOptions = {}): Promise<CommandSocket> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers['X-Auth'] = opts.token;
  if (opts.cookie) headers.Cookie = opts.cookie;
  const ws = new WebSocket(wsUrl(srv, path), { headers });
  const messages: string[] = [];
  const waiters: { n: number; resolve: (m: string[]) => void }[] = [];
  let isClosed = false;
  const closed = new Promise<Closed>((resolve) => {
    ws.on('close', (code, reason) => {
      isClosed = true;
      for (const w of waiters.splice(0)) w.resolve(messages);
      resolve({ code, reason: reason.toString() });
    });
  });
  ws.on('message', (data, isBinary) => {
    messages.push(isBinary ? `<binary ${String(data)}>` : data.toString());
    for (const w of [...waiters]) {
      if (messages.length >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(messages);
      }
    }
  });
  const socket: CommandSocket = {
    ws,
    messages,
    closed,
    waitForMessages(n) {
      if (messages.length >= n || isClosed) return Promise.resolve(messages);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(socket));
    ws.once('unexpected-response', (_req, res) => {
      reject(new UpgradeRefused(res.statusCode ?? 0));
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

/** Sends one line and collects everything until the server closes. */
export async function runCommand(srv: Served, token: string, line: string, path = '/'): Promise<{ messages: string[] } & Closed> {
  const s = await openCommand(srv, `/api/command${path}`, { token });
  s.ws.send(line);
  const { code, reason } = await s.closed;
  return { messages: s.messages, code, reason };
}

/** The status the server answered an upgrade with (101 when it upgraded). */
export async function upgradeStatus(srv: Served, path: string, opts: OpenOptions = {}): Promise<number> {
  try {
    const s = await openCommand(srv, path, opts);
    s.ws.terminate();
    return 101;
  } catch (err) {
    if (err instanceof UpgradeRefused) return err.status;
    throw err;
  }
}

/** A number no other process on the machine uses as an argument, to find ours with `ps`. */
export function marker(): string {
  return String(randomInt(100_000, 999_999));
}

/** Lines of `ps` whose command line contains `needle` (excluding ps itself). */
export function processesWith(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,stat,args'], { encoding: 'utf8' });
  // Zombies (state Z) have ended; they only wait to be reaped.
  return out.split('\n').filter((l) => l.includes(needle) && !/\bps -eo\b/.test(l) && !/^\s*\d+\s+Z/.test(l));
}

/** `sleep` processes (the program itself, not a shell line naming it) whose argument contains `needle`. */
export function sleepers(needle: string): string[] {
  return processesWith(needle).filter((l) => /^\s*\d+\s+\S+\s+(?:\S*\/)?sleep\s/.test(l));
}

/** Polls until `check` is true or the time is up. */
export async function eventually(check: () => boolean, ms = 5000, step = 50): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, step));
  }
}
