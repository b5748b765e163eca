/** WebDAV requests for the integration tests: Basic auth, and raw paths that no URL parser tidies. */
import http from 'node:http';
import type { TestServer } from './harness.js';

export interface DavAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function basic(username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
}

/**
 * One request with the path sent exactly as written (`..`, `%2e%2e` and backslashes reach the
 * server untouched, unlike with fetch).
 */
export function davRaw(
  srv: TestServer,
  method: string,
  rawPath: string,
  opts: { auth?: { username: string; password: string } | null; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<DavAnswer> {
  const base = new URL(srv.url);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.auth) headers.authorization = basic(opts.auth.username, opts.auth.password);
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method, path: base.pathname.replace(/\/$/, '') + rawPath, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The hrefs of a multistatus answer, decoded. */
export function hrefs(xml: string): string[] {
  return [...xml.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => decodeURIComponent(m[1]!));
}
