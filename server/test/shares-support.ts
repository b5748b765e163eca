/** Helpers of the share and public-access integration tests. */
import { request } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Share } from '@coffer/protocol';
import { expect } from 'vitest';
import type { TestServer } from './harness.js';

export const ALL_PERMS = { admin: false, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true };

export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request whose path is sent byte for byte (fetch would resolve `..` itself). */
export function rawRequest(
  srv: TestServer,
  p: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResult> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method: init.method ?? 'GET', path: u.pathname.replace(/\/$/, '') + p, headers: init.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

export interface Actor {
  id: number;
  username: string;
  token: string;
  scope: string;
}

export async function actor(srv: TestServer, over: Parameters<TestServer['createUser']>[0] = {}): Promise<Actor> {
  const u = await srv.createUser({ perm: { ...ALL_PERMS }, ...over });
  return { id: u.id, username: u.username, token: await srv.login(u.username, u.password), scope: u.scope };
}

/** Writes a file below the server root, creating its folders. */
export async function put(srv: TestServer, rel: string, content: string | Buffer = 'hello'): Promise<string> {
  const full = path.join(srv.root, rel);
  await mkdir(path.dirname(full), { recursive: true });
  await writeFile(full, content);
  return full;
}

export function createShare(srv: TestServer, a: Actor, p: string, body: unknown = {}) {
  return srv.fetch(`/api/share${p}`, { method: 'POST', token: a.token, json: body });
}

export async function share(srv: TestServer, a: Actor, p: string, body: unknown = {}): Promise<Share> {
  const res = await createShare(srv, a, p, body);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Share;
}
