/**
 * How many archive downloads run at once. Each one holds its read-ahead, its compressor's state
 * and its socket buffers while the client reads (bench/README.md "Archive memory"), so the server
 * runs at most `total` of them and one client at most `perClient`; past either, the download is
 * refused with 429 and Retry-After before anything is sent. 0 = no limit. The counts are per
 * instance (several instances each count their own).
 */
import type { ServerResponse } from 'node:http';
import { TooManyRequests } from '../../http/errors.js';

/** Seconds a refused download is told to wait: archives last seconds to minutes. */
export const ARCHIVE_RETRY_AFTER_S = 5;

export interface ArchiveSlots {
  /**
   * A slot for `client` (who counts: a user, or a client address for public links). Returns the
   * function that gives it back (calling it again does nothing); throws 429 when none is free.
   */
  take(client: string): () => void;
  /** Downloads running now. */
  readonly active: number;
  /**
   * Milliseconds a download may wait on a client that reads nothing before it is cut and its slot
   * comes back (a client that never reads would otherwise hold its slot for ever).
   */
  stallMs: number;
}

/** Default of `stallMs`: a reader that takes nothing for a minute is gone. */
export const ARCHIVE_STALL_MS = 60_000;

export function createArchiveSlots(limits: { perClient: number; total: number; stallMs?: number }): ArchiveSlots {
  const byClient = new Map<string, number>();
  let active = 0;
  return {
    stallMs: limits.stallMs ?? ARCHIVE_STALL_MS,
    get active() {
      return active;
    },
    take(client) {
      const mine = byClient.get(client) ?? 0;
      const full = (limits.total > 0 && active >= limits.total) || (limits.perClient > 0 && mine >= limits.perClient);
      if (full) throw new TooManyRequests(ARCHIVE_RETRY_AFTER_S);
      active++;
      byClient.set(client, mine + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        active--;
        const left = (byClient.get(client) ?? 1) - 1;
        if (left > 0) byClient.set(client, left);
        else byClient.delete(client);
      };
    },
  };
}

/**
 * Cuts `res` once its client has read nothing for `stallMs` while the answer waits on it, so that
 * a client that never reads cannot hold its slot for ever. Answers the function that stops the
 * watch.
 */
export function watchStall(res: ServerResponse, stallMs: number): () => void {
  let stalledSince: number | undefined;
  const onDrain = () => (stalledSince = undefined);
  res.on('drain', onDrain);
  const watchdog = setInterval(
    () => {
      if (!res.writableNeedDrain) return void (stalledSince = undefined);
      stalledSince ??= Date.now();
      if (Date.now() - stalledSince >= stallMs) res.destroy();
    },
    Math.max(10, Math.floor(stallMs / 4)),
  );
  return () => {
    clearInterval(watchdog);
    res.off('drain', onDrain);
  };
}
