/**
 * Jobs (docs/api.md §18 E10) over real HTTP: the list (own jobs; an admin's all=true), progress,
 * cancel, forget, the limits per user and in total, failures without server paths, and what a
 * restart or a close does to running jobs (marked failed, never left "running"). The work is a
 * test function started through the service; extract and compress start theirs the same way.
 * Runs on SQLite, and on PostgreSQL with COFFER_TEST_PG_URL.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '@coffer/protocol';
import { BadRequest } from '../src/http/errors.js';
import { createDeps } from '../src/services.js';
import type { JobContext } from '../src/features/jobs/service.js';
import { STOPPED } from '../src/features/jobs/service.js';
import type { UserRecord } from '../src/features/users/repository.js';
import { startServer, useServer, type TestServer } from './harness.js';

/** A job's work that runs until released (or aborted), reporting progress as told. */
function held() {
  let release!: () => void;
  let ctx!: JobContext;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const released = new Promise<void>((r) => (release = r));
  const work = async (c: JobContext) => {
    ctx = c;
    started();
    await new Promise<void>((resolve, reject) => {
      c.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      void released.then(resolve);
    });
    return { path: '/made/' };
  };
  return { work, running, release: () => release(), progress: (d: number, t?: number) => ctx.progress(d, t) };
}

async function jobs(srv: TestServer, token: string, query = ''): Promise<Job[]> {
  const res = await srv.fetch(`/api/jobs${query}`, { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Job[];
}

async function job(srv: TestServer, token: string, id: string): Promise<Job> {
  const res = await srv.fetch(`/api/jobs/${id}`, { token });
  expect(res.status).toBe(200);
  return (await res.json()) as Job;
}

async function userOf(srv: TestServer, name = 'admin'): Promise<UserRecord> {
  return (await srv.deps.users.byUsername(name))!;
}

describe('jobs: list, progress, cancel, forget', () => {
  const srv = useServer({ jobsPerUser: 0, jobs: 0 });

  it('shows its own jobs with progress and result; others see none of them, an admin all', async () => {
    const admin = await srv.login();
    const bob = await srv.createUser();
    const bobToken = await srv.login(bob.username, bob.password);
    const h = held();
    const started = await srv.deps.jobs.start(bob, 'test', { source: '/a.zip' }, h.work);
    await h.running;
    h.progress(5, 10);
    await expect.poll(async () => (await job(srv, bobToken, started.id)).progress, { timeout: 5000 }).toEqual({ done: 5, total: 10 });
    const listed = (await jobs(srv, bobToken)).find((j) => j.id === started.id)!;
    expect(listed).toMatchObject({ kind: 'test', userId: bob.id, username: bob.username, inputs: { source: '/a.zip' }, state: 'running', error: null, result: null, finished: null });

    const carol = await srv.createUser();
    const carolToken = await srv.login(carol.username, carol.password);
    expect((await jobs(srv, carolToken)).map((j) => j.id)).not.toContain(started.id);
    expect((await jobs(srv, carolToken, '?all=true')).map((j) => j.id)).not.toContain(started.id);
    expect((await srv.fetch(`/api/jobs/${started.id}`, { token: carolToken })).status).toBe(404);
    expect((await srv.fetch(`/api/jobs/${started.id}/cancel`, { method: 'POST', token: carolToken })).status).toBe(404);
    expect((await jobs(srv, admin)).map((j) => j.id)).not.toContain(started.id);
    expect((await jobs(srv, admin, '?all=true')).map((j) => j.id)).toContain(started.id);

    h.release();
    await expect.poll(async () => (await job(srv, bobToken, started.id)).state, { timeout: 5000 }).toBe('done');
    const ended = await job(srv, bobToken, started.id);
    expect(ended.result).toEqual({ path: '/made/' });
    expect(ended.progress).toEqual({ done: 10, total: 10 });
    expect(ended.finished).not.toBeNull();
  });

  it('cancels a running job: the work sees the abort, the job says cancelled; then it can be forgotten', async () => {
    const token = await srv.login();
    const h = held();
    const started = await srv.deps.jobs.start(await userOf(srv), 'test', {}, h.work);
    await h.running;
    expect((await srv.fetch(`/api/jobs/${started.id}`, { method: 'DELETE', token })).status).toBe(409);
    const res = await srv.fetch(`/api/jobs/${started.id}/cancel`, { method: 'POST', token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Job).state).toBe('cancelled');
    expect((await srv.fetch(`/api/jobs/${started.id}/cancel`, { method: 'POST', token })).status).toBe(409);
    expect((await srv.fetch(`/api/jobs/${started.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect((await srv.fetch(`/api/jobs/${started.id}`, { token })).status).toBe(404);
  });

  it('a refusal is the job error in words; an unexpected failure says "internal error", no server path', async () => {
    const token = await srv.login();
    const admin = await userOf(srv);
    const refused = await srv.deps.jobs.start(admin, 'test', {}, () => Promise.reject(new BadRequest('the archive is damaged')));
    const crashed = await srv.deps.jobs.start(admin, 'test', {}, () => Promise.reject(new Error(`EIO ${srv.root}/secret`)));
    await expect.poll(async () => (await job(srv, token, refused.id)).state, { timeout: 5000 }).toBe('failed');
    expect((await job(srv, token, refused.id)).error).toBe('the archive is damaged');
    await expect.poll(async () => (await job(srv, token, crashed.id)).state, { timeout: 5000 }).toBe('failed');
    expect((await job(srv, token, crashed.id)).error).toBe('internal error');
  });

  it('refuses bad ids and needs a session', async () => {
    const token = await srv.login();
    expect((await srv.fetch('/api/jobs/not-an-id', { token })).status).toBe(400);
    expect((await srv.fetch(`/api/jobs/${'0'.repeat(32)}`, { token })).status).toBe(404);
    expect((await srv.fetch('/api/jobs')).status).toBe(401);
  });
});

describe('jobs: limits', () => {
  const srv = useServer({ jobsPerUser: 2, jobs: 3 });

  it('past the per-user limit a job is refused with 429 and Retry-After; in total, jobs wait queued', async () => {
    const a = await srv.createUser();
    const b = await srv.createUser();
    const token = await srv.login(b.username, b.password);
    const hs = [held(), held(), held(), held(), held()];
    const a1 = await srv.deps.jobs.start(a, 'test', {}, hs[0]!.work);
    await srv.deps.jobs.start(a, 'test', {}, hs[1]!.work);
    const refused = await srv.deps.jobs.start(a, 'test', {}, held().work).catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '5' } });
    const b1 = await srv.deps.jobs.start(b, 'test', {}, hs[2]!.work);
    // The fourth job in all waits for a free slot; cancelled while it waits, it never runs.
    const b2 = await srv.deps.jobs.start(b, 'test', {}, hs[3]!.work);
    await Promise.all([hs[0]!.running, hs[1]!.running, hs[2]!.running]);
    expect((await job(srv, token, b1.id)).state).toBe('running');
    expect((await job(srv, token, b2.id)).state).toBe('queued');
    const cancel = await srv.fetch(`/api/jobs/${b2.id}/cancel`, { method: 'POST', token });
    expect(((await cancel.json()) as Job).state).toBe('cancelled');
    const b3 = await srv.deps.jobs.start(b, 'test', {}, hs[4]!.work);
    expect((await job(srv, token, b3.id)).state).toBe('queued');
    hs[0]!.release();
    await hs[4]!.running;
    await expect.poll(async () => (await job(srv, token, b3.id)).state, { timeout: 5000 }).toBe('running');
    // a's first job ended: a may start another.
    await expect.poll(async () => (await srv.deps.jobs.get(a, a1.id)).state, { timeout: 5000 }).toBe('done');
    const again = held();
    await srv.deps.jobs.start(a, 'test', {}, again.work);
    for (const h of [...hs, again]) h.release();
    let ran = false;
    void hs[3]!.running.then(() => (ran = true));
    await expect.poll(async () => (await jobs(srv, token)).every((j) => j.state === 'done' || j.state === 'cancelled'), { timeout: 5000 }).toBe(true);
    expect(ran).toBe(false);
  });
});

describe('jobs: the per-user limit across processes', () => {
  const srv = useServer({ jobsPerUser: 2, jobs: 8 });

  it('starts at once in two processes on one database take the last places once', async () => {
    const second = await createDeps(srv.config, { failureDelayMs: 0, jobHeartbeatMs: 60_000 });
    const hs: ReturnType<typeof held>[] = [];
    try {
      const u = await srv.createUser();
      const first = held();
      hs.push(first);
      await srv.deps.jobs.start(u, 'test', {}, first.work);
      // One place left, asked for by both processes at the same moment.
      const tries = [srv.deps.jobs, second.deps.jobs].map((jobs) => {
        const h = held();
        hs.push(h);
        return jobs.start(u, 'test', {}, h.work);
      });
      const settled = await Promise.allSettled(tries);
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
      for (const s of settled.filter((s) => s.status === 'rejected')) expect(s.reason).toMatchObject({ status: 429 });
      const rows = await srv.deps.db.kysely.selectFrom('jobs').select('id').where('user_id', '=', u.id).execute();
      expect(rows).toHaveLength(2);
    } finally {
      for (const h of hs) h.release();
      await second.deps.jobs.close();
      await second.deps.db.close();
    }
  });
});

describe('jobs: restarts', () => {
  it('a running job of a process that stopped beating is failed at the next start, not left running', async () => {
    // Beats far apart: no sweep runs during the test, only the second process's start.
    const srv = await startServer({}, { jobHeartbeatMs: 60_000 });
    try {
      const token = await srv.login();
      const admin = await userOf(srv);
      const h = held();
      const live = await srv.deps.jobs.start(admin, 'test', {}, h.work);
      await h.running;
      // A job whose process died a while ago (its last heartbeat long past).
      const deadId = 'f'.repeat(32);
      await srv.deps.db.kysely
        .insertInto('jobs')
        .values({ id: deadId, kind: 'test', user_id: admin.id, inputs: '{}', state: 'running', progress_done: 3, progress_total: 9, error: null, result: null, instance: 'gone', cancel_requested: 0, created_at: 1, updated_at: 1, finished_at: null })
        .execute();
      // A second process on the same database starts: the dead job is failed, the live one is not.
      const second = await createDeps(srv.config, { failureDelayMs: 0, jobHeartbeatMs: 60_000 });
      try {
        const dead = await job(srv, token, deadId);
        expect(dead).toMatchObject({ state: 'failed', error: STOPPED, progress: { done: 3, total: 9 } });
        expect(dead.finished).not.toBeNull();
        expect((await job(srv, token, live.id)).state).toBe('running');
      } finally {
        await second.deps.jobs.close();
        await second.deps.db.close();
      }
      // A graceful close stops the running job and marks it failed.
      await srv.app.close();
      const row = await srv.deps.db.kysely.selectFrom('jobs').selectAll().where('id', '=', live.id).executeTakeFirstOrThrow();
      expect(row.state).toBe('failed');
      expect(row.error).toBe(STOPPED);
    } finally {
      await srv.close();
    }
  });

  it('the heartbeat of a live process keeps its jobs running past the staleness limit', async () => {
    const srv = await startServer({}, { jobHeartbeatMs: 100 });
    try {
      const token = await srv.login();
      const h = held();
      const live = await srv.deps.jobs.start(await userOf(srv), 'test', {}, h.work);
      await h.running;
      // Several beats later the job still runs: its own process kept it alive.
      await new Promise((r) => setTimeout(r, 700));
      expect((await job(srv, token, live.id)).state).toBe('running');
      h.release();
      await expect.poll(async () => (await job(srv, token, live.id)).state, { timeout: 5000 }).toBe('done');
    } finally {
      await srv.close();
    }
  });
});
