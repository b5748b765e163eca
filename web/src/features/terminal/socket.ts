/**
 * The command WebSocket (docs/api.md §16.1): one socket per command at {baseURL}/api/command{folder}.
 * The upgrade is an ordinary GET, so the browser sends the `auth` cookie the session keeps
 * current (docs/api.md §2.2); the first message is the command line, every message back is a line of
 * output, and the server closes the socket when the command is done.
 */
import { apiUrl } from '../../config';
import { encodePath } from '../../lib/paths';

/** How a command ended, from the client's point of view. */
export type EndKind =
  /** The program ran and exited 0. */
  | 'done'
  /** Non-zero exit, could not start, or killed by a server limit (close 1011 and others). */
  | 'failed'
  /** A server check refused the line (close 1008 after its message). */
  | 'refused'
  /** No socket: the upgrade was refused (401, 403) or the server is unreachable. */
  | 'unreachable';

/** The server's refusal text (docs/api.md §16.1 step 2), shown translated. */
export const NOT_ALLOWED = 'Command not allowed.';

const CLOSE_NORMAL = 1000;
const CLOSE_ABNORMAL = 1006;
const CLOSE_REFUSED = 1008;

/** ws(s)://host + base URL + /api/command + the folder, each segment encoded. */
export function commandUrl(folder: string, location: Pick<Location, 'protocol' | 'host'>, api = apiUrl): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const path = folder.startsWith('/') ? folder : `/${folder}`;
  return `${scheme}//${location.host}${api(`/command${encodePath(path)}`)}`;
}

/**
 * The client treats every close as "finished" (docs/api.md §16.1 step 4); the code only picks the note
 * shown under the output. File Browser drops the connection without a close frame on success,
 * which arrives as 1006 once the socket was open.
 */
export function endKind(opened: boolean, code: number): EndKind {
  if (!opened) return 'unreachable';
  if (code === CLOSE_NORMAL || code === CLOSE_ABNORMAL) return 'done';
  if (code === CLOSE_REFUSED) return 'refused';
  return 'failed';
}

export interface CommandHandlers {
  onLine: (line: string) => void;
  onEnd: (kind: EndKind) => void;
}

/** Runs `line` in `folder`; returns a function that stops it (closing the socket kills the command). */
export function startCommand(folder: string, line: string, handlers: CommandHandlers): () => void {
  let opened = false;
  let stopped = false;
  let socket: WebSocket;
  try {
    socket = new WebSocket(commandUrl(folder, window.location));
  } catch {
    queueMicrotask(() => handlers.onEnd('unreachable'));
    return () => undefined;
  }
  socket.addEventListener('open', () => {
    opened = true;
    socket.send(line);
  });
  socket.addEventListener('message', (e: MessageEvent) => {
    if (!stopped && typeof e.data === 'string') handlers.onLine(e.data);
  });
  socket.addEventListener('close', (e: CloseEvent) => {
    if (!stopped) handlers.onEnd(endKind(opened, e.code));
  });
  return () => {
    if (stopped) return;
    stopped = true;
    if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close(CLOSE_NORMAL);
  };
}
