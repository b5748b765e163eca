/**
 * The upload queue as the panel sees it (docs/client.md §2 "Upload progress panel", §4 "Upload queue"):
 * entries, bytes, the smoothed speed sampled every second, the remaining time. When everything
 * has finished the target folders and the storage bar reload, the new items are selected and a
 * success toast shows. A leave-page warning is on while uploads run.
 */
import type { QueryClient } from '@tanstack/react-query';
import { i18n } from '../../i18n';
import { create } from 'zustand';
import type { ApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import { config } from '../../config';
import { UPLOAD_SAMPLE_MS } from '../../lib/limits';
import { folderOf } from '../../lib/paths';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toasts';
import { uploadsLimitFor, useUploadsLimitStore } from '../../stores/uploadsLimit';
import { requestReselect } from '../files/reselect';
import type { Plan } from './plan';
import { UploadQueue, type Finished, type UploadStatus } from './queue';
import { NO_SPEED, nextSpeed, remainingSeconds, type SpeedState } from './speed';
import { createTransport } from './transport';

export interface UploadRow {
  id: number;
  name: string;
  size: number;
  sent: number;
  status: UploadStatus;
  error: ApiError | null;
}

interface UploadsState {
  rows: UploadRow[];
  active: boolean;
  sent: number;
  total: number;
  /** Smoothed bytes per second; null before the first sample. */
  speed: number | null;
  /** Seconds left; null when unknown. */
  remaining: number | null;
  collapsed: boolean;
}

export const useUploads = create<UploadsState>()(() => ({
  rows: [],
  active: false,
  sent: 0,
  total: 0,
  speed: null,
  remaining: null,
  collapsed: false,
}));

/**
 * docs/client.md §5, §9: the signed-in user's uploadsLimit (1 to 10) as the profile saved it in this browser (the
 * token's user has no such field); 5 when the user chose nothing, 1 without a user.
 */
export function uploadsLimit(): number {
  return uploadsLimitFor(useSession.getState().user);
}

let client: QueryClient | null = null;
let speed: SpeedState = NO_SPEED;
let sampler: ReturnType<typeof setInterval> | null = null;
let lastSample = { at: 0, sent: 0 };
let publishTimer: ReturnType<typeof setTimeout> | null = null;

const queue = new UploadQueue({
  transport: (job, onProgress) => {
    const tus = config.TusSettings;
    const canDelete = useSession.getState().user?.perm.delete ?? false;
    return createTransport({ chunkSize: tus.chunkSize, retryCount: tus.retryCount, canDelete })(
      job,
      onProgress,
    );
  },
  limit: uploadsLimit,
  onChange: () => schedulePublish(),
  onFinish: (result) => void finish(result),
});

// A limit changed in the profile applies at once: a higher one starts waiting uploads now, a lower
// one lets the running ones finish and starts no more until fewer run.
useUploadsLimitStore.subscribe(() => queue.refill());

function warnBeforeLeaving(e: BeforeUnloadEvent) {
  e.preventDefault();
  // Older browsers show the dialog only when a value is set.
  e.returnValue = '';
}

function publish(): void {
  publishTimer = null;
  const { sent, total } = queue.totals();
  const active = queue.active;
  const rows = queue.entries.map((e) => ({
    id: e.id,
    name: e.job.name,
    size: e.job.size,
    sent: e.sent,
    status: e.status,
    error: e.error,
  }));
  useUploads.setState({
    rows,
    active,
    sent,
    total,
    remaining: remainingSeconds(total - sent, speed.speed),
    speed: speed.speed,
  });
  if (active && !sampler) start();
  if (!active && sampler) stop();
}

/** Progress arrives many times a second; the panel follows at most every 100 ms, state changes at once. */
function schedulePublish(): void {
  if (!queue.active) {
    if (publishTimer) clearTimeout(publishTimer);
    publish();
    return;
  }
  publishTimer ??= setTimeout(publish, 100);
}

function start(): void {
  speed = NO_SPEED;
  lastSample = { at: performance.now(), sent: queue.totals().sent };
  sampler = setInterval(sample, UPLOAD_SAMPLE_MS);
  window.addEventListener('beforeunload', warnBeforeLeaving);
}

function stop(): void {
  if (sampler) clearInterval(sampler);
  sampler = null;
  speed = NO_SPEED;
  window.removeEventListener('beforeunload', warnBeforeLeaving);
  useUploads.setState({ speed: null, remaining: null });
}

function sample(): void {
  const now = performance.now();
  const { sent, total } = queue.totals();
  const seconds = (now - lastSample.at) / 1000;
  if (seconds > 0) speed = nextSpeed(speed, (sent - lastSample.sent) / seconds);
  lastSample = { at: now, sent };
  useUploads.setState({ speed: speed.speed, remaining: remainingSeconds(total - sent, speed.speed) });
}

/** `folder` (ends in `/`) and its parent folder, when it has one. */
function withParent(folder: string): string[] {
  return folder === '/' ? [folder] : [folder, folderOf(folder.slice(0, -1))];
}

async function finish({ batches, failed, aborted }: Finished): Promise<void> {
  const cache = client;
  if (!cache) return;
  // Each target folder, and the folder that lists it: its size and date there changed too (a drop
  // onto a folder item uploads into that folder while its parent is on screen).
  const folders = [...new Set(batches.flatMap((b) => withParent(b.folder)))];
  void cache.invalidateQueries({ queryKey: ['usage'] });
  await Promise.all(folders.map((f) => cache.invalidateQueries({ queryKey: queryKeys.resource(f) })));
  if (aborted) return;
  for (const b of batches) requestReselect(b.folder, b.names);
  if (failed === 0) toast.success(i18n.t('upload.done'));
}

/** Queues a planned upload into `folder` (ends in `/`). */
export function enqueueUpload(plan: Plan, folder: string, queryClient: QueryClient): void {
  client = queryClient;
  queue.add(plan.jobs, { folder, names: plan.names });
}

/** Stops every upload (the caller asked for confirmation) and reloads the listings. */
export function abortUploads(): void {
  queue.abort();
}

/** Closes the panel after a run that left failures. */
export function dismissUploads(): void {
  queue.dismissFailed();
}

export function toggleUploadsCollapsed(): void {
  useUploads.setState((s) => ({ collapsed: !s.collapsed }));
}
