/**
 * How one upload job travels (docs/client.md §7, §8; docs/api.md §13): folders by POST /api/resources/{path}/,
 * files over tus 1.0 with tus-js-client when a chunk size is set, else in one plain POST. A tus
 * upload first asks the server (HEAD) whether an upload of this file is already under way, so a
 * re-upload after a page reload continues from the server's offset (a fresh POST would get 409,
 * S53). Every request carries the current session token; answers drive renewal and logout.
 */
import type { HttpRequest, HttpResponse } from 'tus-js-client';
import { noteAuthAnswer, request } from '../../api/client';
import { ApiError } from '../../api/errors';
import { apiUrl } from '../../config';
import { encodePath } from '../../lib/paths';
import { currentToken } from '../../stores/session';
import { createResource } from '../files/api';
import type { UploadJob } from './plan';
import type { Transfer, Transport } from './queue';
import { retryDelays, shouldRetry } from './retry';

export interface TransportSettings {
  /** Bytes per PATCH; 0 sends each file in one plain POST. */
  chunkSize: number;
  retryCount: number;
  /** With the delete permission an aborted tus upload is removed from the server (DELETE). */
  canDelete: boolean;
}

const TUS_HEADERS = { 'Tus-Resumable': '1.0.0' };

export function aborted(): ApiError {
  return new ApiError(0, 'Upload aborted', true);
}

/** A promise that an `abort` call rejects with the canceled error, whatever the request does. */
function abortable(run: (signal: AbortSignal) => Promise<void>, onAbort: () => void): Transfer {
  const controller = new AbortController();
  let rejectAbort!: (err: ApiError) => void;
  const abortedPromise = new Promise<never>((_, reject) => (rejectAbort = reject));
  // Nobody may be waiting on it when the transfer finished first.
  abortedPromise.catch(() => undefined);
  return {
    done: Promise.race([run(controller.signal), abortedPromise]),
    abort() {
      if (controller.signal.aborted) return;
      controller.abort();
      onAbort();
      rejectAbort(aborted());
    },
  };
}

export function createTransport(settings: TransportSettings): Transport {
  return (job, onProgress) => {
    if (!job.file) return folderTransfer(job);
    if (settings.chunkSize > 0) return tusTransfer(job, job.file, settings, onProgress);
    return plainTransfer(job, job.file, onProgress);
  };
}

function folderTransfer(job: UploadJob): Transfer {
  return abortable(
    () => createResource(job.path),
    () => undefined,
  );
}

/** The tus URL of a target path; tus-js-client resolves `Location` against an absolute endpoint. */
function tusUrl(path: string): string {
  return new URL(apiUrl(`/tus${encodePath(path)}`), window.location.href).href;
}

/**
 * The upload URL to continue, when the server holds an unfinished upload of this path with the
 * same length. One of another length is a different file: it is removed when the user may delete,
 * otherwise the POST reports the conflict.
 */
async function resumableUrl(job: UploadJob, size: number, canDelete: boolean): Promise<string | null> {
  let res: Response;
  try {
    res = await request(`/tus${encodePath(job.path)}`, {
      method: 'HEAD',
      headers: TUS_HEADERS,
      cache: 'no-store',
    });
  } catch {
    return null; // 404: nothing under way; anything else is reported by the POST
  }
  if (Number(res.headers.get('Upload-Length')) === size) return tusUrl(job.path);
  if (canDelete) {
    await request(`/tus${encodePath(job.path)}`, { method: 'DELETE', headers: TUS_HEADERS }).catch(
      () => undefined,
    );
  }
  return null;
}

/** docs/client.md §8: the response body, '000 No connection' without an answer, else 'Upload failed'. */
function tusError(err: unknown): ApiError {
  const res = (err as { originalResponse?: HttpResponse | null }).originalResponse;
  if (!res) {
    const req = (err as { originalRequest?: HttpRequest | null }).originalRequest;
    return new ApiError(0, req ? '000 No connection' : 'Upload failed');
  }
  const status = res.getStatus();
  const body = (res.getBody() ?? '').trim();
  return new ApiError(status, body || `${status}` || 'Upload failed');
}

function tusTransfer(
  job: UploadJob,
  file: File,
  settings: TransportSettings,
  onProgress: (sent: number) => void,
): Transfer {
  let upload: { abort(terminate?: boolean): Promise<void> } | null = null;
  return abortable(
    async (signal) => {
      // tus-js-client only loads when the first file is sent.
      const [{ Upload }, uploadUrl] = await Promise.all([
        import('tus-js-client'),
        resumableUrl(job, file.size, settings.canDelete),
      ]);
      if (signal.aborted) return;
      await new Promise<void>((resolve, reject) => {
        const tus = new Upload(file, {
          endpoint: `${tusUrl(job.path)}?override=${String(job.override)}`,
          uploadUrl,
          chunkSize: settings.chunkSize,
          retryDelays: retryDelays(settings.retryCount),
          parallelUploads: 1,
          storeFingerprintForResuming: false,
          removeFingerprintOnSuccess: false,
          // The token may be renewed during a long upload: each request takes the current one.
          onBeforeRequest: (req) => {
            const token = currentToken();
            if (token) req.setHeader('X-Auth', token);
          },
          onAfterResponse: (_req, res) =>
            noteAuthAnswer(res.getStatus(), res.getHeader('X-Renew-Token') ?? null),
          onShouldRetry: (err) => shouldRetry(err.originalResponse?.getStatus() ?? 0),
          onProgress: (sent) => onProgress(sent),
          onSuccess: () => resolve(),
          onError: (err) => reject(tusError(err)),
        });
        upload = tus;
        tus.start();
      });
    },
    () => {
      // With the delete permission the server forgets the partial upload (docs/api.md §13.5).
      void upload?.abort(settings.canDelete).catch(() => undefined);
    },
  );
}

/** docs/client.md §8 plain upload: 409 rejects with the status code, a lost connection with '001 Connection aborted'. */
function plainTransfer(job: UploadJob, file: File, onProgress: (sent: number) => void): Transfer {
  const xhr = new XMLHttpRequest();
  return abortable(
    () =>
      new Promise<void>((resolve, reject) => {
        xhr.open('POST', apiUrl(`/resources${encodePath(job.path)}?override=${String(job.override)}`));
        const token = currentToken();
        if (token) xhr.setRequestHeader('X-Auth', token);
        xhr.upload.onprogress = (e) => onProgress(e.loaded);
        xhr.onload = () => {
          if (token) noteAuthAnswer(xhr.status, xhr.getResponseHeader('X-Renew-Token'));
          if (xhr.status >= 200 && xhr.status < 300) resolve();
          else if (xhr.status === 409) reject(new ApiError(409, '409'));
          else reject(new ApiError(xhr.status, xhr.responseText.trim() || `${xhr.status} ${xhr.statusText}`));
        };
        xhr.onerror = () => reject(new ApiError(0, '001 Connection aborted'));
        xhr.send(file);
      }),
    () => xhr.abort(),
  );
}
