/**
 * The upload queue (docs/client.md §4 "Upload queue"): jobs wait, up to `limit` run at once, each reports
 * the bytes it sent; when nothing is left the finished ones are cleared and the caller hears which
 * folders received what. Abort stops everything. Plain TypeScript: the transport is given.
 */
import { ApiError } from '../../api/errors';
import type { UploadJob } from './plan';

export type UploadStatus = 'queued' | 'running' | 'done' | 'failed';

export interface UploadEntry {
  id: number;
  job: UploadJob;
  sent: number;
  status: UploadStatus;
  error: ApiError | null;
}

/** One running request: settles when done; `abort` makes it reject with a canceled ApiError. */
export interface Transfer {
  done: Promise<void>;
  abort(): void;
}

export type Transport = (job: UploadJob, onProgress: (sent: number) => void) => Transfer;

/** What one call to `add` sent where. */
export interface Batch {
  folder: string;
  names: string[];
}

export interface Finished {
  batches: Batch[];
  failed: number;
  aborted: boolean;
}

export interface QueueOptions {
  transport: Transport;
  /** How many run at once, read each time one could start. */
  limit: () => number;
  onChange: () => void;
  onFinish: (result: Finished) => void;
}

let nextId = 1;

export class UploadQueue {
  /** Waiting, running, finished and failed entries, in the order they were added. */
  entries: UploadEntry[] = [];
  private batches: Batch[] = [];
  private running = new Map<number, Transfer>();

  constructor(private readonly options: QueueOptions) {}

  get active(): boolean {
    return this.entries.some((e) => e.status === 'queued' || e.status === 'running');
  }

  /** Bytes sent and to send, over the entries that have not failed. */
  totals(): { sent: number; total: number } {
    let sent = 0;
    let total = 0;
    for (const e of this.entries) {
      if (e.status === 'failed') continue;
      sent += e.sent;
      total += e.job.size;
    }
    return { sent, total };
  }

  add(jobs: readonly UploadJob[], batch: Batch): void {
    if (jobs.length === 0) return;
    for (const job of jobs) this.entries.push({ id: nextId++, job, sent: 0, status: 'queued', error: null });
    this.batches.push(batch);
    this.pump();
    this.options.onChange();
  }

  /** Stops every running transfer and drops the waiting ones. */
  abort(): void {
    if (!this.active) return;
    const batches = this.batches;
    for (const transfer of this.running.values()) transfer.abort();
    this.running.clear();
    this.entries = this.entries.filter((e) => e.status === 'failed');
    this.batches = [];
    this.options.onChange();
    this.options.onFinish({ batches, failed: this.entries.length, aborted: true });
  }

  /** Forgets the failed entries (the user closed the panel). */
  dismissFailed(): void {
    this.entries = this.entries.filter((e) => e.status !== 'failed');
    this.options.onChange();
  }

  /** Starts waiting entries up to the current limit (call after the limit rose). */
  refill(): void {
    if (!this.active) return;
    this.pump();
    this.options.onChange();
  }

  private pump(): void {
    const limit = Math.max(1, this.options.limit());
    for (const entry of this.entries) {
      if (this.running.size >= limit) break;
      if (entry.status === 'queued') this.run(entry);
    }
  }

  private run(entry: UploadEntry): void {
    entry.status = 'running';
    const transfer = this.options.transport(entry.job, (sent) => {
      entry.sent = Math.min(sent, entry.job.size);
      this.options.onChange();
    });
    this.running.set(entry.id, transfer);
    transfer.done.then(
      () => this.settle(entry, transfer, null),
      (err: unknown) => this.settle(entry, transfer, toApiError(err)),
    );
  }

  private settle(entry: UploadEntry, transfer: Transfer, error: ApiError | null): void {
    // An aborted queue has already let go of this transfer.
    if (this.running.get(entry.id) !== transfer) return;
    this.running.delete(entry.id);
    if (error) {
      entry.status = 'failed';
      entry.error = error;
    } else {
      entry.status = 'done';
      entry.sent = entry.job.size;
    }
    this.pump();
    if (!this.active) {
      const batches = this.batches;
      this.batches = [];
      this.entries = this.entries.filter((e) => e.status === 'failed');
      this.options.onChange();
      this.options.onFinish({ batches, failed: this.entries.length, aborted: false });
      return;
    }
    this.options.onChange();
  }
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, err instanceof Error ? err.message : String(err));
}
