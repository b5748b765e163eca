/**
 * The box's budgets (stat and read workers, image resizers, password hashes, archive downloads,
 * jobs) are meant for the whole machine. With `--workers N` each request process takes its part of
 * them, so that N processes never run N times the work a single one would (docs/deployment.md).
 */
import { availableParallelism } from 'node:os';

export const MAX_WORKERS = 64;

/** `--workers`: "auto" = one per core, else a whole number from 1 to MAX_WORKERS; null when neither. */
export function parseWorkers(text: string, cores = availableParallelism()): number | null {
  const t = text.trim().toLowerCase();
  if (t === 'auto') return Math.max(1, Math.min(MAX_WORKERS, cores));
  if (!/^\d{1,3}$/.test(t)) return null;
  const n = Number(t);
  return n >= 1 && n <= MAX_WORKERS ? n : null;
}

let processes = 1;

/** Called once in a worker, before any service is built: how many request processes share the box. */
export function setRequestProcesses(n: number): void {
  processes = Math.max(1, Math.floor(n));
}

export function requestProcesses(): number {
  return processes;
}

/**
 * This process's part of a budget meant for the whole box: `total` split evenly, at least 1.
 * 0 stays 0 (the settings' "no limit").
 */
export function shareOf(total: number, among = processes): number {
  if (total <= 0) return total;
  return Math.max(1, Math.floor(total / among));
}
