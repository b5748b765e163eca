/**
 * Several instances (issue 17 item 5): two real `coffer` processes started at the same moment on
 * one empty database — a fresh PostgreSQL database per round when COFFER_TEST_PG_URL is set, else
 * one new SQLite file shared by both. Both must come up, be ready, hold the same signing key (a
 * token from a login on one is accepted by the other) and agree on one admin, whose generated
 * password exactly one of them prints.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, login, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

const ROUNDS = 20;
const AT_ONCE = 2;
const GENERATED = /User '([^']+)' initialized with randomly generated password: (\S+?)"/;

beforeAll(() => ensureBuilt(), 120_000);

function start(ws: Workspace): Promise<ServeProcess> {
  // Four processes start at once: a busy machine may need more than the usual 20 s.
  return serve(ws, ['--root', ws.root, '--database', ws.database, '--address', '127.0.0.1', '--port', '0'], {}, 60_000);
}

async function users(origin: string, token: string): Promise<{ status: number; names: string[] }> {
  const res = await fetch(`${origin}/api/users`, { headers: { 'X-Auth': token } });
  if (res.status !== 200) return { status: res.status, names: [] };
  return { status: 200, names: ((await res.json()) as { username: string }[]).map((u) => u.username) };
}

/** One round; answers what went wrong, or null. */
async function round(): Promise<string | null> {
  const ws = await workspace();
  const started = await Promise.allSettled([start(ws), start(ws)]);
  const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason).split('\n').find((l) => l.startsWith('coffer:')) ?? String(s.reason).slice(0, 200)] : []));
    if (failed.length) return `an instance did not start: ${failed.join('; ')}`;
    const [a, b] = up as [ServeProcess, ServeProcess];
    for (const s of up) {
      const ready = await fetch(`${s.origin}/ready`);
      if (ready.status !== 200) return `/ready answered ${ready.status}`;
    }
    const printed = up.flatMap((s) => s.lines.filter((l) => GENERATED.test(l)));
    if (printed.length !== 1) return `${printed.length} instances printed a generated admin password`;
    const [, username, password] = GENERATED.exec(printed[0]!)!;
    // A token from a login on A works on B; B's renewal of it (signed with B's key) works on A.
    const res = await login(a.origin, username!, password!);
    if (res.status !== 200) return `login answered ${res.status}`;
    const fromA = await res.text();
    const renewed = await fetch(`${b.origin}/api/renew`, { method: 'POST', headers: { 'X-Auth': fromA } });
    if (renewed.status !== 200) return `a token from one instance answered ${renewed.status} on the other`;
    const seen = await users(a.origin, await renewed.text());
    if (seen.status !== 200) return `a token from one instance answered ${seen.status} on the other`;
    if (seen.names.join() !== username) return `users: ${seen.names.join(', ')}`;
    if (up.some((s) => s.proc.exitCode !== null)) return 'an instance exited';
    return null;
  } finally {
    await Promise.all(up.map((s) => s.stop()));
    await ws.dispose();
  }
}

describe('two instances started together on an empty database', { timeout: 300_000 }, () => {
  it(`both serve with one signing key and one admin (${ROUNDS} rounds)`, async () => {
    const failures: string[] = [];
    // Two rounds at a time keep the run short (about 55 s of CPU in all: 40 starts of coffer); the
    // two instances of a round start together. The timeout leaves room for a busy machine.
    for (let i = 0; i < ROUNDS; i += AT_ONCE) {
      const problems = await Promise.all(Array.from({ length: AT_ONCE }, () => round()));
      problems.forEach((p, j) => p && failures.push(`round ${i + j + 1}: ${p}`));
    }
    expect(failures).toEqual([]);
  });
});
