/**
 * E8/S25: failed logins and throttling are logged with the name as typed, the client address
 * and the request id — never a password or a token. The harness starts apps without a logger,
 * so this file builds its own app with the production logger options writing to memory.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions, type App } from '../src/app.js';
import { defaults, resolveConfig } from '../src/config/load.js';
import { createDeps, type Deps } from '../src/services.js';
import { ADMIN } from './harness.js';

describe('security log lines (E8)', () => {
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  let app: App;
  let deps: Deps;
  let url = '';
  let dir = '';
  let dropDb = async () => undefined as void;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-authlog-'));
    let database = path.join(dir, 'coffer.db');
    const admin = process.env.COFFER_TEST_PG_URL;
    if (admin) {
      const name = `coffer_t_${randomBytes(6).toString('hex')}`;
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`CREATE DATABASE ${name}`);
      await c.end();
      const u = new URL(admin);
      u.pathname = `/${name}`;
      database = u.toString();
      dropDb = async () => {
        const d = new pg.Client({ connectionString: admin });
        await d.connect();
        await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await d.end();
      };
    }
    const config = resolveConfig(
      { ...defaults(), root: path.join(dir, 'root'), database, port: 0, log: 'stdout', username: ADMIN.username, password: ADMIN.password, trustedProxies: ['127.0.0.1'] },
      {},
    );
    ({ deps } = await createDeps(config, { failureDelayMs: 0 }));
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        raw += chunk.toString();
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logger = { ...(loggerOptions(config) as object), stream } as FastifyServerOptions['logger'];
    app = await buildApp(deps, { logger });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${addr.port}`;
  });
  afterAll(async () => {
    await app?.close();
    await deps?.db.close();
    await dropDb();
    await rm(dir, { recursive: true, force: true });
  });

  const login = (body: unknown, ip: string, requestId: string) =>
    fetch(`${url}/api/login`, { method: 'POST', body: JSON.stringify(body), headers: { 'X-Forwarded-For': ip, 'X-Request-Id': requestId } });

  it('logs a failed login with the name as typed, the address and the request id, never the password', async () => {
    const secret = 'Sup3r-Secret-Typed-Password';
    const res = await login({ username: 'Admin Typo', password: secret }, '192.0.2.44', 'req-failed-1');
    expect(res.status).toBe(403);
    const line = lines.find((l) => l.event === 'login_failed' && l.reqId === 'req-failed-1');
    expect(line).toBeDefined();
    expect(line!.username).toBe('Admin Typo');
    expect(line!.address).toBe('192.0.2.44');
    expect(['warn', 40, 'info', 30]).toContain(line!.level);
    expect(raw).not.toContain(secret);
  });

  it('logs throttling decisions and never a token', async () => {
    for (let i = 0; i < 10; i++) await login({ username: ADMIN.username, password: `wrong-${i}` }, '192.0.2.45', `req-t-${i}`);
    const res = await login({ username: ADMIN.username, password: ADMIN.password }, '192.0.2.45', 'req-throttled');
    expect(res.status).toBe(429);
    const line = lines.find((l) => l.event === 'login_throttled' && l.reqId === 'req-throttled');
    expect(line).toBeDefined();
    expect(line!.address).toBe('192.0.2.45');
    const ok = await login({ username: ADMIN.username, password: ADMIN.password }, '192.0.2.46', 'req-ok');
    expect(ok.status).toBe(200);
    const token = await ok.text();
    await fetch(`${url}/api/renew`, { method: 'POST', headers: { 'X-Auth': token } });
    await fetch(`${url}/api/renew?auth=${token}`, { method: 'POST' });
    await fetch(`${url}/api/logout`, { method: 'POST', headers: { 'X-Auth': token } });
    expect(lines.some((l) => l.event === 'login' && l.reqId === 'req-ok')).toBe(true);
    expect(raw).not.toContain(ADMIN.password);
    expect(raw).not.toContain(token);
    expect(raw).not.toContain(token.split('.')[2]!);
  });
});
