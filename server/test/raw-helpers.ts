/** Helpers for the byte-endpoint tests (raw, archive, preview, subtitle, search). */
import { request } from 'node:http';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestServer } from './harness.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A GET with the path sent exactly as written (fetch would resolve `..`, `%2e%2e` and `\`
 * before sending, hiding what the server does with them).
 */
export function rawGet(
  srv: TestServer,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname.replace(/\/$/, '') + rawPath,
        method: 'GET',
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Writes a file under the server root (parents created), optionally with a fixed mtime. */
export async function putFile(
  root: string,
  rel: string,
  content: string | Buffer,
  mtime?: Date,
): Promise<string> {
  const full = path.join(root, rel);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
  if (mtime) await utimes(full, mtime, mtime);
  return full;
}
