/**
 * tus-js-client configured the way File Browser's web client configures it (endpoint from the
 * resource path with `?override=`, chunk size and retries from the settings, one connection, no
 * stored fingerprint, X-Auth, never retry a 409), plus byte helpers for the upload tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as tus from 'tus-js-client';

export interface TusSettings {
  chunkSize: number;
  retryCount: number;
}

/** The client's retry delays: 0, then 1 s doubling, capped at 20 s, `retryCount` entries. */
export function retryDelays(retryCount: number): number[] | undefined {
  if (!retryCount || retryCount < 1) return undefined;
  const out: number[] = [];
  let delay = 0;
  for (let i = 0; i < retryCount; i++) {
    out.push(Math.min(delay, 20_000));
    delay = delay === 0 ? 1000 : Math.min(delay * 2, 20_000);
  }
  return out;
}

export function encodePath(virtual: string): string {
  return virtual.split('/').map(encodeURIComponent).join('/');
}

export interface UploadRun {
  upload: tus.Upload;
  done: Promise<void>;
  /** Offsets reported after each chunk. */
  chunks: number[];
}

export interface StartOptions {
  /** Base URL of the server, base path included (TestServer.url). */
  url: string;
  token: string;
  path: string;
  source: Buffer | string;
  override?: boolean;
  tus: TusSettings;
  /** Resume an existing upload at this URL (a reload that remembers where it was). */
  uploadUrl?: string;
  onChunk?: (offset: number) => void;
  retryDelays?: number[];
}

/** Starts an upload; `source` is a Buffer or a file path (streamed by ranges, as a browser File). */
export function startUpload(o: StartOptions): UploadRun {
  const chunks: number[] = [];
  let upload!: tus.Upload;
  const input = typeof o.source === 'string' ? createReadStream(o.source) : o.source;
  const done = new Promise<void>((resolve, reject) => {
    upload = new tus.Upload(input as unknown as tus.Upload['file'], {
      endpoint: `${o.url}/api/tus${encodePath(o.path)}?override=${o.override ? 'true' : 'false'}`,
      uploadUrl: o.uploadUrl,
      chunkSize: o.tus.chunkSize,
      retryDelays: o.retryDelays ?? retryDelays(o.tus.retryCount),
      parallelUploads: 1,
      storeFingerprintForResuming: false,
      headers: { 'X-Auth': o.token },
      onShouldRetry: (err) => {
        const status = err.originalResponse ? err.originalResponse.getStatus() : 0;
        return status !== 409;
      },
      onChunkComplete: (_size, accepted) => {
        chunks.push(accepted);
        o.onChunk?.(accepted);
      },
      onError: reject,
      onSuccess: () => resolve(),
    });
    upload.start();
  });
  return { upload, done, chunks };
}

/** Status of a tus error (0 when there was no answer). */
export function statusOf(err: unknown): number {
  const e = err as { originalResponse?: { getStatus(): number } | null };
  return e?.originalResponse ? e.originalResponse.getStatus() : 0;
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function sha256File(file: string): Promise<string> {
  return sha256(await readFile(file));
}

/** Deterministic-looking but random content. */
export function bytes(n: number): Buffer {
  return randomBytes(n);
}
