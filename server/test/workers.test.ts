/**
 * `--workers 2` (issue 24 item 4; docs/deployment.md): the built CLI started with two request
 * processes on one port, on a new SQLite file — or a fresh PostgreSQL database when
 * COFFER_TEST_PG_URL is set. Each request below opens its own connection (no keep-alive), so the
 * primary hands them to the workers in turn.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

const GENERATED = /User '([^']+)' initialized with randomly generated password: (\S+?)"/;
const LISTENING = /Server listening at/;
/** --rate-limit for requests without a session: the tests before the last one stay below it. */
const ANON_LIMIT = 40;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a connection of its own. */
function request(origin: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** The worker that answered a /metrics scrape: "slot/pid". */
async function whoAnswers(origin: string): Promise<string> {
  const res = await request(origin, '/metrics');
  const line = /^coffer_worker_info\{.*\} 1$/m.exec(res.body)?.[0] ?? '';
  const m = /worker="(\d+)"[^}]*pid="(\d+)"|pid="(\d+)"[^}]*worker="(\d+)"/.exec(line);
  if (!m) throw new Error(`no coffer_worker_info in /metrics (${res.status})`);
  return m[1] ? `${m[1]}/${m[2]}` : `${m[4]}/${m[3]}`;
}

async function workersSeen(origin: string, tries = 8): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < tries; i++) seen.add(await whoAnswers(origin));
  return seen;
}

function login(origin: string, username: string, password: string): Promise<Answer> {
  return request(origin, '/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password, recaptcha: '' }) });
}

const count = (lines: string[], re: RegExp) => lines.filter((l) => re.test(l)).length;

describe('coffer serve --workers 2', { timeout: 300_000 }, () => {
  let ws: Workspace;
  let srv: ServeProcess;
  let admin: { username: string; password: string };
  /** Signed in before the throttle test refuses 127.0.0.1. */
  let token: string;

  beforeAll(async () => {
    ensureBuilt();
    ws = await workspace();
    srv = await serve(ws, ['--root', ws.root, '--database', ws.database, '--address', '127.0.0.1', '--port', '0', '--workers', '2', '--rate-limit', `anon=${ANON_LIMIT}/min`], {}, 150_000);
    // `serve` returns at the first worker's "listening"; the second follows.
    for (let i = 0; count(srv.lines, LISTENING) < 2; i++) {
      if (i > 1500) throw new Error('the second worker did not listen');
      await new Promise((r) => setTimeout(r, 100));
    }
    const [, username, password] = GENERATED.exec(srv.lines.find((l) => GENERATED.test(l))!)!;
    admin = { username: username!, password: password! };
    const res = await login(srv.origin, admin.username, admin.password);
    expect(res.status).toBe(200);
    token = res.body;
  }, 240_000);

  afterAll(async () => {
    await srv?.stop();
    await ws?.dispose();
  });

  it('did the first start once, in the primary, and both workers serve', async () => {
    expect(count(srv.lines, GENERATED)).toBe(1);
    expect(srv.lines.find((l) => GENERATED.test(l))).toContain('"role":"primary"');
    const seen = await workersSeen(srv.origin);
    expect([...seen].map((s) => s.split('/')[0]).sort()).toEqual(['1', '2']);
    // The worker's identity is only where /metrics is allowed: no page or API answer names it.
    const health = await request(srv.origin, '/health');
    expect(health.status).toBe(200);
    for (const pid of [...seen].map((s) => s.split('/')[1]!)) {
      expect(JSON.stringify(health.headers)).not.toContain(pid);
      expect(health.body).not.toContain(pid);
    }
  });

  it('both workers answer from the file index: folder sizes and search, whichever answers (one maintains it)', async () => {
    const auth = { 'X-Auth': token };
    const roles = async () => {
      const out: string[] = [];
      for (let i = 0; i < 6; i++) out.push((JSON.parse((await request(srv.origin, '/api/index', { headers: auth })).body) as { status: string; role: string }).status);
      return out;
    };
    for (let i = 0; (await roles()).some((s) => s !== 'ready'); i++) {
      if (i > 200) throw new Error('the index was not ready on both workers');
      await new Promise((r) => setTimeout(r, 100));
    }
    const seenRoles = new Set<string>();
    for (let i = 0; i < 6; i++) seenRoles.add((JSON.parse((await request(srv.origin, '/api/index', { headers: auth })).body) as { role: string }).role);
    expect([...seenRoles].sort()).toEqual(['maintainer', 'reader']);
    // Written through the workers in turn. A write through a reader is in the index before that
    // reader's next listing or search (it waits for the maintainer); one through the maintainer
    // reaches a reader once applied (milliseconds). Every listing, on either worker, has sizes.
    expect((await request(srv.origin, '/api/resources/sized/?override=false', { method: 'POST', headers: auth })).status).toBe(200);
    const sizeOfSized = async () =>
      (JSON.parse((await request(srv.origin, '/api/resources/', { headers: auth })).body) as { items: { name: string; folderSize?: number }[] }).items.find((it) => it.name === 'sized')?.folderSize;
    for (let i = 1; i <= 4; i++) {
      const up = await request(srv.origin, `/api/resources/sized/quince-${i}.bin?override=false`, { method: 'POST', headers: auth, body: 'x'.repeat(100) });
      expect(up.status).toBe(200);
      for (let t = 0; ; t++) {
        const size = await sizeOfSized();
        expect(size).toBeTypeOf('number');
        if (size === 100 * i) break;
        if (t > 20) expect(size).toBe(100 * i);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (let k = 0; k < 4; k++) expect(await sizeOfSized()).toBe(100 * i);
      const found = (await request(srv.origin, '/api/search/?query=quince', { headers: auth })).body.split('\n').filter((l) => l);
      expect(found).toHaveLength(i);
    }
  });

  it('counts wrong passwords spread over both workers together (S30: the 11th is 429)', async () => {
    // Alternating connections split the ten failures five and five: counted per worker, the
    // eleventh attempt would still be checked (403).
    for (let i = 0; i < 10; i++) expect((await login(srv.origin, admin.username, `wrong-${i}`)).status).toBe(403);
    for (let i = 0; i < 2; i++) expect((await login(srv.origin, admin.username, 'wrong-again')).status).toBe(429);
  });

  it('shows a settings change made through one worker on both at once', async () => {
    const get = await request(srv.origin, '/api/settings', { headers: { 'X-Auth': token } });
    expect(get.status).toBe(200);
    const settings = JSON.parse(get.body) as Record<string, unknown>;
    const put = await request(srv.origin, '/api/settings', { method: 'PUT', headers: { 'X-Auth': token, 'content-type': 'application/json' }, body: JSON.stringify({ ...settings, signup: !settings.signup }) });
    expect(put.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const again = await request(srv.origin, '/api/settings', { headers: { 'X-Auth': token } });
      expect((JSON.parse(again.body) as { signup: boolean }).signup).toBe(!settings.signup);
    }
  });

  it('starts another worker in the place of one that was killed, and keeps serving meanwhile', async () => {
    const before = await workersSeen(srv.origin);
    const victim = [...before].find((s) => s.startsWith('2/'))!;
    const pid = Number(victim.split('/')[1]);
    process.kill(pid, 'SIGKILL');
    await srv.waitFor(/worker exited; starting another/, 20_000);
    expect(srv.lines.find((l) => /worker exited; starting another/.test(l))).toContain(`"workerPid":${pid}`);
    // The other worker answers while the new one starts.
    expect((await request(srv.origin, '/health')).status).toBe(200);
    for (let i = 0; count(srv.lines, LISTENING) < 3; i++) {
      if (i > 1500) throw new Error('no worker started in the place of the killed one');
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = await workersSeen(srv.origin);
    expect([...after].map((s) => s.split('/')[0]).sort()).toEqual(['1', '2']);
    expect(after.has(victim)).toBe(false);
  });

  it('counts --rate-limit over both workers together', async () => {
    // Counted per worker, about 2 × ANON_LIMIT anonymous requests would pass before the first 429.
    let passed = 0;
    for (; passed < 2 * ANON_LIMIT; passed++) if ((await request(srv.origin, '/api/settings')).status === 429) break;
    expect(passed).toBeLessThan(ANON_LIMIT);
    expect((await request(srv.origin, '/api/settings')).status).toBe(429);
  });

  it('stops every process on SIGTERM, with exit code 0', async () => {
    const pids = [...(await workersSeen(srv.origin))].map((s) => Number(s.split('/')[1]));
    expect(await srv.stop()).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });

});
