/**
 * `--workers N` (docs/deployment.md): the primary process forks N request processes that share the
 * listening port (node:cluster hands each new connection to the next worker in turn). The primary
 * serves no request. It has already brought the database up to date and made the first admin
 * before the first fork (main.ts), so the workers find the setup done. It then:
 * - holds the guessing throttles' counters for every worker (cluster/ipc.ts);
 * - gives slot 1 the box's periodic sweeps (AppOptions.duties), and a replacement the slot of the
 *   worker it replaces, so the sweeps go on after a crash;
 * - starts a new worker when one dies (a log line says which and why) — after a wait growing from
 *   1 s to a minute while the slot's workers keep dying soon after they listened — but stops
 *   everything when a worker dies before it ever listened (a wrong port, a refused start), as one
 *   process would;
 * - on SIGTERM/SIGINT asks every worker to finish its requests, kills those still there after the
 *   shutdown timeout, and exits once all are gone.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { createThrottleHost } from './ipc.js';

/** The variables a worker is started with: its slot (1…N) and N. */
export const SLOT_ENV = 'COFFER_WORKER_SLOT';
export const COUNT_ENV = 'COFFER_WORKER_COUNT';

/**
 * A worker that served less than this after it listened died "soon": its replacement waits
 * RESTART_DELAY_MS, doubled for each such death in a row of its slot, at most RESTART_DELAY_MAX_MS
 * (a worker that crashes at every start is not restarted in a busy loop forever). A longer life
 * starts the replacement at once and the count again.
 */
const SHORT_LIFE_MS = 5000;
const RESTART_DELAY_MS = 1000;
const RESTART_DELAY_MAX_MS = 60_000;

/** The wait before a replacement after `soon` short lives in a row of its slot (0: at once). */
export function restartDelay(soon: number): number {
  if (soon <= 0) return 0;
  return Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** Math.min(soon - 1, 16));
}

export interface PrimaryOptions {
  count: number;
  log: Logger;
  /** Seconds the workers have to finish their requests after SIGTERM/SIGINT. */
  shutdownTimeout: number;
}

/** Where this process stands: the primary of `--workers`, one of its workers, or alone. */
export function workerRole(env: NodeJS.ProcessEnv = process.env): { slot: number; count: number } | null {
  if (!cluster.isWorker) return null;
  const slot = Number(env[SLOT_ENV]);
  const count = Number(env[COUNT_ENV]);
  if (!Number.isSafeInteger(slot) || !Number.isSafeInteger(count) || slot < 1 || slot > count) return null;
  return { slot, count };
}

export function runPrimary(opts: PrimaryOptions): Promise<number> {
  const { count, log } = opts;
  const throttles = createThrottleHost();
  const slots = new Map<Worker, { slot: number; listened: number | null }>();
  /** Short lives in a row, per slot. */
  const soon = new Map<number, number>();
  let stopping = false;
  let exitCode = 0;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (finish = resolve));

  function fork(slot: number): void {
    const worker = cluster.fork({ [SLOT_ENV]: String(slot), [COUNT_ENV]: String(count) });
    slots.set(worker, { slot, listened: null });
    throttles.serve(worker);
    worker.on('listening', () => {
      const s = slots.get(worker);
      if (s) s.listened = Date.now();
    });
    worker.on('exit', (code, signal) => {
      const s = slots.get(worker)!;
      slots.delete(worker);
      if (stopping) {
        if (slots.size === 0) finish(exitCode);
        return;
      }
      if (s.listened === null) {
        // As one process would: a start that fails (the port taken, a refused sandbox) ends the server.
        log.error({ worker: s.slot, workerPid: worker.process.pid, code, signal }, 'a worker stopped before it listened; stopping');
        exitCode = typeof code === 'number' && code !== 0 ? code : 1;
        void stop('worker start failed');
        return;
      }
      const inARow = Date.now() - s.listened < SHORT_LIFE_MS ? (soon.get(s.slot) ?? 0) + 1 : 0;
      soon.set(s.slot, inARow);
      const wait = restartDelay(inARow);
      log.error({ worker: s.slot, workerPid: worker.process.pid, code, signal, restartInMs: wait }, 'worker exited; starting another');
      const again = () => {
        if (!stopping) fork(s.slot);
      };
      if (wait > 0) setTimeout(again, wait).unref();
      else again();
    });
  }

  async function stop(reason: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    log.info({ reason, workers: slots.size }, 'shutting down');
    if (slots.size === 0) return finish(exitCode);
    for (const w of slots.keys()) w.process.kill('SIGTERM');
    // Each worker has its own shutdown timeout; this one only catches a worker that hangs anyway.
    const timer = setTimeout(
      () => {
        log.warn({ workers: slots.size }, 'workers did not stop in time; killing them');
        for (const w of slots.keys()) w.process.kill('SIGKILL');
      },
      opts.shutdownTimeout * 1000 + 2000,
    );
    timer.unref();
  }

  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  log.info({ workers: count }, 'starting request workers');
  for (let slot = 1; slot <= count; slot++) fork(slot);
  return done;
}
