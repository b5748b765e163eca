/**
 * GET /api/command/{path} (docs/api.md §16, S70, S71): the shell panel's WebSocket. One command per
 * connection; authentication, the Origin check and the folder's scope check happen before the
 * upgrade, so a refused request gets a plain HTTP status and no socket.
 */
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { Forbidden } from '../../http/errors.js';
import { errors, noBody, PathParams, rawParam, SESSION_OR_COOKIE } from '../../http/schemas.js';
import type { GroupRun, Outcome } from './process.js';
import { createCommandService, type CommandPlace, type CommandService } from './service.js';

/** A command line is small; anything bigger is refused by the socket itself (close 1009). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** How long an opened socket may stay without a command (docs/api.md §16.1 step 5). */
const FIRST_MESSAGE_WAIT_MS = 60_000;
/** A client that stops answering pings is gone: its command is killed. */
const HEARTBEAT_MS = 30_000;
/** Back-pressure on a slow client: stop reading the program's output above HIGH queued bytes. */
const QUEUE_HIGH = 1024 * 1024;
const QUEUE_LOW = 256 * 1024;

export const CLOSE = {
  /** docs/api.md §16.1 step 4: exit status 0. */
  done: 1000,
  /** Binary frames carry no command. */
  unsupported: 1003,
  /** One of the docs/api.md §16.1 step 2 checks refused the line (after its text message). */
  refused: 1008,
  /** Non-zero exit, cannot start, killed by a limit, or no command came. */
  failed: 1011,
} as const;
const FAILED_REASON = 'Internal Server Error';

/** S70: the `auth` cookie must not let another site drive the socket. */
async function sameHostOnly(req: FastifyRequest): Promise<void> {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new Forbidden();
  }
  if (host.toLowerCase() !== req.host.toLowerCase()) throw new Forbidden();
}

function folderParam(req: FastifyRequest): string {
  return rawParam(req, '*') ?? '/';
}

/** The upgrade request as the OpenAPI document shows it (the socket itself is docs/api.md §16.1). */
const schema = {
  tags: ['command'],
  summary: 'The command socket: one command line, its output line by line (docs/api.md §16.1)',
  description:
    'A WebSocket. Send one text message with the command line; the output comes back as text messages, one per line. ' +
    'Close codes: 1000 exit status 0; 1003 a binary message; 1008 refused (after its message); 1011 failed, killed or no command in time. ' +
    'Execution must be on (--disable-exec=false) and the user needs the execute permission and the command in its list.',
  security: SESSION_OR_COOKIE,
  params: PathParams,
  response: {
    101: noBody('switching to the WebSocket protocol'),
    ...errors(400, 401, 403, 404),
  },
};

export async function commandRoutes(app: FastifyInstance): Promise<void> {
  const { deps } = app;
  await app.register(websocket, {
    options: { maxPayload: MAX_MESSAGE_BYTES },
    // Broken frames, bad UTF-8, oversize messages: the client's fault; the close ends the command.
    errorHandler: (err: Error, socket: WebSocket, req: FastifyRequest) => {
      req.log.info({ reason: err.message }, 'command socket error');
      socket.terminate();
    },
  });
  const service = createCommandService({ config: deps.config, settings: deps.settings, confinement: deps.confinement });
  app.addHook('preClose', async () => service.stopAll());

  // S1/S4 before the upgrade: a path that escapes the scope or is denied is a plain 403/400.
  // A folder that does not exist only fails the start (close 1011, docs/api.md §16.1).
  const checkFolder = async (req: FastifyRequest) => {
    await deps.files.resolve(req.user, folderParam(req));
  };
  const handler = (socket: WebSocket, req: FastifyRequest) => serveCommand(socket, req, app, service);
  for (const url of ['/api/command', '/api/command/*']) {
    app.get(url, { websocket: true, onRequest: [sameHostOnly, app.authenticate], preHandler: [checkFolder], schema }, handler);
  }
}

function serveCommand(socket: WebSocket, req: FastifyRequest, app: FastifyInstance, service: CommandService): void {
  const log = req.log;
  const { config } = app.deps;
  let state: 'waiting' | 'checking' | 'running' | 'ended' = 'waiting';
  let run: GroupRun | undefined;
  let queued = 0;
  let paused = false;
  let alive = true;

  const open = () => socket.readyState === socket.OPEN;
  const close = (code: number, reason = '') => {
    state = 'ended';
    if (open()) socket.close(code, reason);
  };
  const sendLine = (line: string) => {
    if (!open()) return;
    const size = Buffer.byteLength(line);
    queued += size;
    socket.send(line, () => {
      queued -= size;
      if (paused && queued < QUEUE_LOW) {
        paused = false;
        run?.resume();
      }
    });
    if (!paused && queued > QUEUE_HIGH) {
      paused = true;
      run?.pause();
    }
  };

  const waitMs = config.commandTimeout > 0 ? Math.min(FIRST_MESSAGE_WAIT_MS, config.commandTimeout * 1000) : FIRST_MESSAGE_WAIT_MS;
  const firstMessageTimer = setTimeout(() => {
    if (state === 'waiting') close(CLOSE.failed, FAILED_REASON);
  }, waitMs);
  const heartbeat = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, HEARTBEAT_MS);
  socket.on('pong', () => {
    alive = true;
  });

  socket.on('close', () => {
    clearTimeout(firstMessageTimer);
    clearInterval(heartbeat);
    state = 'ended';
    run?.stop(); // the client went away (or we closed): nothing of the command survives
  });

  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (state !== 'waiting') return; // one command per connection; later messages are not read
    if (isBinary) {
      close(CLOSE.unsupported, 'text messages only');
      return;
    }
    const line = rawText(data);
    if (line.trim() === '') return;
    state = 'checking';
    clearTimeout(firstMessageTimer);
    execute(line).catch((err: unknown) => {
      log.error({ err }, 'command failed');
      run?.stop();
      close(CLOSE.failed, FAILED_REASON);
    });
  });

  async function execute(line: string): Promise<void> {
    const checked = await service.check(req.user, line);
    if (state !== 'checking') return; // the client left meanwhile: nothing is started
    if (!checked.ok) {
      log.info({ user: req.user.id, reason: checked.message }, 'command refused');
      sendLine(checked.message);
      close(CLOSE.refused);
      return;
    }
    let place: CommandPlace;
    try {
      const dir = await app.deps.files.resolve(req.user, folderParam(req), { mustExist: true });
      if (!dir.stat?.isDirectory()) throw new Error('not a folder');
      place = { scope: dir.root, cwd: dir.real, perm: req.user.perm };
    } catch (err) {
      log.info({ reason: (err as Error).message }, 'command folder unusable');
      close(CLOSE.failed, FAILED_REASON);
      return;
    }
    if (state !== 'checking') return;
    state = 'running';
    const started = Date.now();
    run = await service.start(checked.invocation, place, (text) => sendLine(text));
    if (state !== 'running') run.stop(); // the client left while the sandbox was being prepared
    log.info({ user: req.user.id, program: checked.words[0], viaShell: checked.invocation.viaShell, pid: run.pid }, 'command run');
    const outcome = await run.done;
    log.info({ user: req.user.id, program: checked.words[0], ms: Date.now() - started, ...describe(outcome) }, 'command finished');
    finish(outcome);
  }

  function finish(outcome: Outcome): void {
    switch (outcome.kind) {
      case 'exited':
        if (outcome.code === 0) close(CLOSE.done);
        else close(CLOSE.failed, FAILED_REASON);
        return;
      case 'timeout':
        sendLine(`Command killed: it ran longer than ${config.commandTimeout} s.`);
        close(CLOSE.failed, FAILED_REASON);
        return;
      case 'output-limit':
        sendLine(`Command killed: it printed more than ${config.commandOutputLimit} bytes.`);
        close(CLOSE.failed, FAILED_REASON);
        return;
      case 'not-started':
      case 'stopped':
        close(CLOSE.failed, FAILED_REASON);
    }
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data))).toString('utf8');
}

function describe(o: Outcome): Record<string, unknown> {
  switch (o.kind) {
    case 'exited':
      return { outcome: o.kind, code: o.code, signal: o.signal };
    case 'not-started':
      return { outcome: o.kind, reason: o.error.message };
    default:
      return { outcome: o.kind };
  }
}
