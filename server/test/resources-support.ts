/** Helpers shared by the resources integration tests. */
import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Permissions, Rule } from '@coffer/protocol';
import type { WriteIo } from '../src/fs/atomic.js';
import type { TestServer } from './harness.js';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

/** An HTTP request whose path is sent byte for byte (fetch would normalise `..` and `%2e%2e`). */
export function rawRequest(
  srv: TestServer,
  p: string,
  init: { method?: string; token?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.token) headers['X-Auth'] = init.token;
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
    const req = http.request(
      { host: url.hostname, port: url.port, method: init.method ?? 'GET', path: url.pathname.replace(/\/$/, '') + p, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

export interface Member {
  id: number;
  token: string;
  scope: string;
  /** Absolute path of the scope folder on disk. */
  dir: string;
}

let n = 0;

/** A user with its own scope folder under the server root, logged in. */
export async function member(
  srv: TestServer,
  o: { perm?: Partial<Permissions>; rules?: Rule[]; hideDotfiles?: boolean; sorting?: { by: string; asc: boolean }; scope?: string } = {},
): Promise<Member> {
  const scope = o.scope ?? `/home/u${++n}-${Date.now().toString(36)}`;
  const dir = path.join(srv.root, scope);
  await mkdir(dir, { recursive: true });
  const u = await srv.createUser({ scope, perm: o.perm as Permissions, rules: o.rules ?? [], hideDotfiles: o.hideDotfiles ?? false, sorting: o.sorting });
  const token = await srv.login(u.username, u.password);
  return { id: u.id, token, scope, dir };
}

export async function put(dir: string, rel: string, content: string | Buffer = ''): Promise<string> {
  const p = path.join(dir, rel);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, content);
  return p;
}

export const denyPath = (p: string): Rule => ({ regex: false, allow: false, path: p, regexp: null });
export const allowPath = (p: string): Rule => ({ regex: false, allow: true, path: p, regexp: null });
export const denyRegex = (raw: string): Rule => ({ regex: true, allow: false, path: '', regexp: { raw } });

/** Runs `fn` with the server's write calls replaced by `io` (a full disk, a refusing disk…). */
export async function withIo<T>(srv: TestServer, io: WriteIo, fn: () => Promise<T>): Promise<T> {
  srv.deps.files.io = io;
  try {
    return await fn();
  } finally {
    srv.deps.files.io = undefined;
  }
}
