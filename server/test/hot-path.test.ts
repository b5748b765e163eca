// The per-request reads that were made cheaper (one prepared session+user query, global rules
// parsed once per stored text) still see every change at once, also one written by another
// instance sharing the database (simulated here by writing the database directly) — S20–S22.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

describe('per-request reads see changes at once (S20–S22, global rules)', () => {
  const srv = useServer();
  const k = () => srv.deps.db.kysely;

  it('global rules written by another instance apply to the next request, and their removal too', async () => {
    await writeFile(path.join(srv.root, 'secret.txt'), 'x');
    const token = await srv.login();
    expect((await srv.fetch('/api/raw/secret.txt', { token })).status).toBe(200);
    const row = await k()
      .selectFrom('kv')
      .select('value')
      .where('key', '=', 'settings')
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(row.value) as { rules: unknown[] };
    const denied = {
      ...stored,
      rules: [{ regex: false, allow: false, path: '/secret.txt', regexp: { raw: '' } }],
    };
    await k()
      .updateTable('kv')
      .set({ value: JSON.stringify(denied) })
      .where('key', '=', 'settings')
      .execute();
    expect((await srv.fetch('/api/raw/secret.txt', { token })).status).toBe(403);
    await k().updateTable('kv').set({ value: row.value }).where('key', '=', 'settings').execute();
    expect((await srv.fetch('/api/raw/secret.txt', { token })).status).toBe(200);
  });

  it('a session deleted by another instance fails on the next request', async () => {
    const token = await srv.login();
    expect((await srv.fetch('/api/usage/', { token })).status).not.toBe(401);
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string };
    await k().deleteFrom('sessions').where('jti', '=', jti).execute();
    expect((await srv.fetch('/api/usage/', { token })).status).toBe(401);
  });

  it('a token used a moment ago is refused on the very next request after logout', async () => {
    await writeFile(path.join(srv.root, 'used.txt'), 'x');
    const token = await srv.login();
    for (let i = 0; i < 3; i++) expect((await srv.fetch('/api/raw/used.txt', { token })).status).toBe(200);
    expect((await srv.fetch('/api/logout', { method: 'POST', token })).status).toBe(204);
    expect((await srv.fetch('/api/raw/used.txt', { token })).status).toBe(401);
    expect((await srv.fetch('/api/raw/used.txt', { token, method: 'HEAD' })).status).toBe(401);
  });

  it('a user changed or deleted by another instance is re-read on the next request', async () => {
    const u = await srv.createUser({ username: 'hotpath' });
    await writeFile(path.join(srv.root, 'f.txt'), 'x');
    const token = await srv.login(u.username, u.password);
    expect((await srv.fetch('/api/raw/f.txt', { token })).status).toBe(200);
    await k()
      .updateTable('users')
      .set({ perm: JSON.stringify({ ...u.perm, download: false }) })
      .where('id', '=', u.id)
      .execute();
    expect((await srv.fetch('/api/raw/f.txt', { token })).status).toBe(403);
    await k().deleteFrom('users').where('id', '=', u.id).execute();
    expect((await srv.fetch('/api/raw/f.txt', { token })).status).toBe(401);
  });
});
