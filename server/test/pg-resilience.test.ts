/** A PostgreSQL server ending an idle pooled connection must not crash Coffer. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe.skipIf(!process.env.COFFER_TEST_PG_URL)('PostgreSQL connection terminated by the server', () => {
  const srv = useServer();
  it('keeps serving after its idle connections are terminated', async () => {
    const token = await srv.login();
    expect((await srv.fetch('/api/users', { token })).status).toBe(200);
    const dbName = new URL(srv.config.database).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.COFFER_TEST_PG_URL });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
    await admin.end();
    await new Promise((r) => setTimeout(r, 200));
    // The pool noticed the dead clients without an uncaught exception, and serves with new ones.
    expect((await srv.fetch('/api/users', { token })).status).toBe(200);
  });
});
