/**
 * Compressing a selection into an archive file, as a job (docs/api.md §18 E12). The archive is
 * the one a download of the same selection gives (features/archive: the walker leaves out what
 * rules deny, hidden Coffer files and links leaving the scope), written into a staging folder
 * inside the destination (fs/extract.ts, noted for the sweep after a crash) and fsynced; only
 * whole does it move to its name (fs/extract.ts place: the user's rules, no link followed), without replacing anything. A
 * failure or a cancel removes the staging folder: no half-written archive is ever seen.
 */
import { PassThrough } from 'node:stream';
import type { JobResult, Rule } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { openStaging, place, placeRules, SkipList } from '../../fs/extract.js';
import type { ResolveUser, ScopedPath } from '../../fs/resolve.js';
import { Conflict } from '../../http/errors.js';
import type { ArchiveFormat } from '../archive/formats.js';
import { measurePlan, streamArchive, type ArchivePlan } from '../archive/service.js';
import { reportingDiskFull } from '../extract/service.js';
import type { JobContext } from '../jobs/service.js';
import type { QuotaMeter } from '../quota/service.js';
import { numberedName } from '../resources/service.js';

export interface CompressJob {
  plan: ArchivePlan;
  format: ArchiveFormat;
  /** The destination folder, its virtual path ending in "/". */
  dest: ScopedPath;
  /** The archive's file name (one segment, checked). */
  name: string;
  user: ResolveUser;
  globalRules: readonly Rule[];
  /** Deps.jobStagingLedger. */
  ledger: string;
  log: FastifyBaseLogger;
  /** The user's quota (features/quota): the archive's bytes are counted before they are written. */
  quota?: QuotaMeter;
}

/** The archive's bytes, each counted against the quota before it is written (features/quota). */
async function* quotaCounted(chunks: AsyncIterable<Buffer>, quota: QuotaMeter | undefined): AsyncIterable<Buffer> {
  for await (const chunk of chunks) {
    quota?.take(chunk.length);
    yield chunk;
  }
}

export function compressSelection(job: CompressJob, ctx: JobContext): Promise<JobResult> {
  return reportingDiskFull(() => compressStaged(job, ctx));
}

async function compressStaged(job: CompressJob, ctx: JobContext): Promise<JobResult> {
  const staging = await openStaging(job.dest, { ledger: job.ledger, job: ctx.id });
  try {
    const out = new PassThrough();
    // Progress: of the archive's uncompressed size (a tar) or its files' bytes (a zip), one walk first.
    const total = await measurePlan(job.plan, job.format.container, { user: job.user, globalRules: job.globalRules, signal: ctx.signal });
    let done = 0;
    ctx.progress(0, total);
    const ends = await Promise.allSettled([
      // A writer that stops (before reading, too) ends the archive's stream: nothing waits on it.
      staging.writeFile([job.name], quotaCounted(out as AsyncIterable<Buffer>, job.quota), undefined, true).catch((err: unknown) => {
        out.destroy();
        throw err;
      }),
      streamArchive(job.plan, job.format, out, {
        user: job.user,
        globalRules: job.globalRules,
        signal: ctx.signal,
        log: ctx.log,
        onProgress: (n) => {
          done += n;
          ctx.progress(Math.min(done, total), total);
        },
      }),
    ]);
    // The writer's error first: a full disk shows on the other side as a premature close.
    const failed = ends.find((e) => e.status === 'rejected');
    if (failed) throw failed.reason;
    ctx.signal.throwIfAborted();
    const skipped = new SkipList();
    await place(staging, { destVirtual: job.dest.virtual, ...placeRules(job.user, job.globalRules), conflict: 'skip', numbered: numberedName }, skipped);
    const refused = skipped.items[0];
    if (refused) throw new Conflict(refused.reason === 'exists' ? `${job.name} exists already` : `${job.name}: ${refused.reason}`);
    return { path: `${job.dest.virtual}${job.name}`, skipped: [] };
  } finally {
    await staging.remove();
  }
}
