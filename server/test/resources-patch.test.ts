import { lstat, mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileEvent, FileEventContext, Phase } from '../src/events/index.js';
import { nodeIo } from '../src/fs/atomic.js';
import { useServer } from './harness.js';
import { denyPath, member, put, rawRequest } from './resources-support.js';

const exists = (p: string) => lstat(p).then(() => true, () => false);
/** The client's double encoding of `destination` (docs/api.md §7.9). */
const dest = (p: string) => encodeURIComponent(p.split('/').map(encodeURIComponent).join('/'));

describe('PATCH /api/resources/{path}', () => {
  const srv = useServer();
  const patch = (token: string, src: string, q: string) => srv.fetch(`/api/resources/${src}?${q}`, { method: 'PATCH', token });

  it('answers 401 without a token', async () => {
    expect((await srv.fetch(`/api/resources/a.txt?action=copy&destination=${dest('/b.txt')}`, { method: 'PATCH' })).status).toBe(401);
  });

  it('answers 403 for copy without create and rename without rename (S11)', async () => {
    const u = await member(srv.get(), { perm: { create: false, rename: false } });
    await put(u.dir, 'a.txt', 'a');
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${dest('/b.txt')}`)).status).toBe(403);
    expect((await patch(u.token, 'a.txt', `action=rename&destination=${dest('/b.txt')}`)).status).toBe(403);
    expect(await readdir(u.dir)).toEqual(['a.txt']);
  });

  it('answers 403 for a denied destination reached through ".." and writes nothing (S3)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/private')] });
    await put(u.dir, 'a.txt', 'a');
    await mkdir(path.join(u.dir, 'public'));
    await mkdir(path.join(u.dir, 'private'));
    for (const action of ['copy', 'rename']) {
      const res = await patch(u.token, 'a.txt', `action=${action}&destination=${dest('/public/../private/a.txt')}`);
      expect(res.status, action).toBe(403);
    }
    expect(await readdir(path.join(u.dir, 'private'))).toEqual([]);
    expect(await exists(path.join(u.dir, 'a.txt'))).toBe(true);
  });

  it('answers 403 for a denied source, escaping destinations and links out of the scope', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/private')] });
    await put(u.dir, 'private/s.txt', 's');
    await put(u.dir, 'a.txt', 'a');
    await mkdir(path.join(srv.root, 'outside-p'), { recursive: true });
    await symlink(path.join(srv.root, 'outside-p'), path.join(u.dir, 'out'));
    expect((await patch(u.token, 'private/s.txt', `action=copy&destination=${dest('/s.txt')}`)).status).toBe(403);
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${encodeURIComponent('/../../a.txt')}`)).status).toBe(403);
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${encodeURIComponent('%2e%2e%2fa.txt')}`)).status).toBe(403);
    expect((await patch(u.token, 'a.txt', `action=rename&destination=${dest('/out/a.txt')}`)).status).toBe(403);
    expect((await rawRequest(srv.get(), `/api/resources/../x?action=copy&destination=${dest('/b')}`, { method: 'PATCH', token: u.token })).status).toBe(403);
    expect(await readdir(path.join(srv.root, 'outside-p'))).toEqual([]);
    expect(await exists(path.join(u.dir, 's.txt'))).toBe(false);
  });

  it('answers 403 when the source or the destination is the scope root (S13)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'd/x.txt', 'x');
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${dest('/')}&override=true`)).status).toBe(403);
    expect((await patch(u.token, 'a.txt', `action=rename&destination=%2F`)).status).toBe(403);
    expect((await patch(u.token, '', `action=copy&destination=${dest('/d/copy')}`)).status).toBe(403);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('a');
  });

  it('answers 400 for an unknown or missing action, a missing destination, and a folder into itself (S13)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'd/x.txt', 'x');
    expect((await patch(u.token, 'd', `action=link&destination=${dest('/e')}`)).status).toBe(400);
    expect((await patch(u.token, 'd', `destination=${dest('/e')}`)).status).toBe(400);
    expect((await patch(u.token, 'd', 'action=copy')).status).toBe(400);
    expect((await patch(u.token, 'd', `action=copy&destination=${dest('/d/inner')}`)).status).toBe(400);
    expect((await patch(u.token, 'd', `action=rename&destination=${dest('/d/inner/deeper')}`)).status).toBe(400);
    expect((await patch(u.token, 'd/x.txt', `action=rename&destination=${dest('/d/x.txt')}`)).status).toBe(400);
    expect((await patch(u.token, 'd', `action=copy&destination=${encodeURIComponent('%zz')}`)).status).toBe(400);
    expect(await readdir(path.join(u.dir, 'd'))).toEqual(['x.txt']);
  });

  it('answers 400 when a folder is moved into itself through a link', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'd/x.txt', 'x');
    await symlink('d', path.join(u.dir, 'alias'));
    expect((await patch(u.token, 'd', `action=rename&destination=${dest('/alias/sub')}`)).status).toBe(400);
    expect(await readdir(path.join(u.dir, 'd'))).toEqual(['x.txt']);
  });

  it('answers 404 for a missing source', async () => {
    const u = await member(srv.get());
    expect((await patch(u.token, 'missing.txt', `action=copy&destination=${dest('/b.txt')}`)).status).toBe(404);
  });

  it('copies a file and a folder tree (new items 0640/0750)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a b#.txt', 'a');
    await put(u.dir, 'd/e/f.txt', 'f');
    expect((await patch(u.token, encodeURIComponent('a b#.txt'), `action=copy&destination=${dest('/copies/a b#.txt')}&override=false&rename=false`)).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'copies/a b#.txt'), 'utf8')).toBe('a');
    expect((await stat(path.join(u.dir, 'copies/a b#.txt'))).mode & 0o777).toBe(0o640);
    expect((await patch(u.token, 'd', `action=copy&destination=${dest('/d2')}`)).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'd2/e/f.txt'), 'utf8')).toBe('f');
    expect(await readFile(path.join(u.dir, 'd/e/f.txt'), 'utf8')).toBe('f');
  });

  it('moves and renames a file and a folder', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'd/x.txt', 'x');
    expect((await patch(u.token, 'a.txt', `action=rename&destination=${dest('/b.txt')}`)).status).toBe(200);
    expect((await patch(u.token, 'd', `action=rename&destination=${dest('/moved/d')}`)).status).toBe(200);
    expect((await readdir(u.dir)).sort()).toEqual(['b.txt', 'moved']);
    expect(await readFile(path.join(u.dir, 'moved/d/x.txt'), 'utf8')).toBe('x');
  });

  it('moves a link as a link', async () => {
    const u = await member(srv.get());
    await put(u.dir, 't.txt', 't');
    await symlink('t.txt', path.join(u.dir, 'l.txt'));
    expect((await patch(u.token, 'l.txt', `action=rename&destination=${dest('/l2.txt')}`)).status).toBe(200);
    expect((await lstat(path.join(u.dir, 'l2.txt'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(u.dir, 't.txt'), 'utf8')).toBe('t');
  });

  it('answers 409 when the destination exists without override; the destination stays', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'b.txt', 'b');
    for (const action of ['copy', 'rename']) {
      expect((await patch(u.token, 'a.txt', `action=${action}&destination=${dest('/b.txt')}&override=false`)).status).toBe(409);
    }
    expect(await readFile(path.join(u.dir, 'b.txt'), 'utf8')).toBe('b');
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('a');
  });

  it('answers 403 for override without modify; replaces with it', async () => {
    const ro = await member(srv.get(), { perm: { modify: false } });
    await put(ro.dir, 'a.txt', 'a');
    await put(ro.dir, 'b.txt', 'b');
    expect((await patch(ro.token, 'a.txt', `action=copy&destination=${dest('/b.txt')}&override=true`)).status).toBe(403);
    expect(await readFile(path.join(ro.dir, 'b.txt'), 'utf8')).toBe('b');
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'b.txt', 'b');
    await put(u.dir, 'c.txt', 'c');
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${dest('/b.txt')}&override=true`)).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'b.txt'), 'utf8')).toBe('a');
    expect((await patch(u.token, 'c.txt', `action=rename&destination=${dest('/b.txt')}&override=true`)).status).toBe(200);
    expect(await readFile(path.join(u.dir, 'b.txt'), 'utf8')).toBe('c');
    expect(await exists(path.join(u.dir, 'c.txt'))).toBe(false);
  });

  it('answers 409 for a file over a folder and a folder over a file, even with override', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'f.txt', 'f');
    await put(u.dir, 'd/x.txt', 'x');
    expect((await patch(u.token, 'f.txt', `action=rename&destination=${dest('/d')}&override=true`)).status).toBe(409);
    expect((await patch(u.token, 'd', `action=copy&destination=${dest('/f.txt')}&override=true`)).status).toBe(409);
    expect(await readFile(path.join(u.dir, 'f.txt'), 'utf8')).toBe('f');
    expect(await readFile(path.join(u.dir, 'd/x.txt'), 'utf8')).toBe('x');
  });

  it('picks a free name base(N)ext with rename=true', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'a');
    await put(u.dir, 'x.tar.gz', 'x');
    await put(u.dir, 'notes', 'n');
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${dest('/a.txt')}&rename=true`)).status).toBe(200);
    expect((await patch(u.token, 'a.txt', `action=copy&destination=${dest('/a.txt')}&rename=true`)).status).toBe(200);
    expect((await patch(u.token, 'x.tar.gz', `action=copy&destination=${dest('/x.tar.gz')}&rename=true`)).status).toBe(200);
    expect((await patch(u.token, 'notes', `action=copy&destination=${dest('/notes')}&rename=true`)).status).toBe(200);
    expect((await readdir(u.dir)).sort()).toEqual(['a(1).txt', 'a(2).txt', 'a.txt', 'notes', 'notes(1)', 'x.tar(1).gz', 'x.tar.gz']);
  });

  it('refuses to move a folder holding a denied descendant or an escaping link, moving nothing (S7)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/d/secret')] });
    await put(u.dir, 'd/a.txt', 'a');
    await put(u.dir, 'd/secret/s.txt', 's');
    expect((await patch(u.token, 'd', `action=rename&destination=${dest('/e')}`)).status).toBe(403);
    expect(await exists(path.join(u.dir, 'e'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'd/a.txt'), 'utf8')).toBe('a');
    await put(u.dir, 'l/a.txt', 'a');
    await symlink('/etc', path.join(u.dir, 'l/etc'));
    expect((await patch(u.token, 'l', `action=rename&destination=${dest('/m')}`)).status).toBe(403);
    expect(await exists(path.join(u.dir, 'm'))).toBe(false);
  });

  it('refuses a copy or move whose destination counterpart is denied (S7)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/dst/secret')] });
    await put(u.dir, 'src/secret/s.txt', 's');
    await put(u.dir, 'src/ok.txt', 'o');
    expect((await patch(u.token, 'src', `action=copy&destination=${dest('/dst')}`)).status).toBe(403);
    expect((await patch(u.token, 'src', `action=rename&destination=${dest('/dst')}`)).status).toBe(403);
    expect(await exists(path.join(u.dir, 'dst'))).toBe(false);
  });

  it('copies a folder without its denied descendants, hidden files and escaping links (S7)', async () => {
    const u = await member(srv.get(), { rules: [denyPath('/src/secret')], hideDotfiles: true });
    await put(u.dir, 'src/ok.txt', 'o');
    await put(u.dir, 'src/secret/s.txt', 's');
    await put(u.dir, 'src/.env', 'e');
    await symlink('/etc', path.join(u.dir, 'src/etc'));
    expect((await patch(u.token, 'src', `action=copy&destination=${dest('/copy')}`)).status).toBe(200);
    expect((await readdir(path.join(u.dir, 'copy'))).sort()).toEqual(['ok.txt']);
  });

  it('merges folders on copy with override and never writes through a link in the destination', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'src/sub/f.txt', 'new');
    await put(u.dir, 'dst/keep.txt', 'k');
    await mkdir(path.join(srv.root, 'outside-m'), { recursive: true });
    await symlink(path.join(srv.root, 'outside-m'), path.join(u.dir, 'dst/sub'));
    expect((await patch(u.token, 'src', `action=copy&destination=${dest('/dst')}&override=true`)).status).toBe(403);
    expect(await readdir(path.join(srv.root, 'outside-m'))).toEqual([]);
    const v = await member(srv.get());
    await put(v.dir, 'src/sub/f.txt', 'new');
    await put(v.dir, 'dst/keep.txt', 'k');
    await put(v.dir, 'dst/sub/f.txt', 'old');
    expect((await patch(v.token, 'src', `action=copy&destination=${dest('/dst')}&override=true`)).status).toBe(200);
    expect(await readFile(path.join(v.dir, 'dst/sub/f.txt'), 'utf8')).toBe('new');
    expect(await readFile(path.join(v.dir, 'dst/keep.txt'), 'utf8')).toBe('k');
  });
});

describe('PATCH across filesystems', () => {
  const srv = useServer();
  it('falls back to copy and delete when rename fails with EXDEV', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'd/a.txt', 'a');
    await put(u.dir, 'd/sub/b.txt', 'b');
    await put(u.dir, 'f.txt', 'f');
    srv.deps.files.io = {
      ...nodeIo,
      // Staging files still rename (same folder); moving the resource itself crosses "devices".
      rename: async (from, to) => {
        if (!path.basename(from).startsWith('.coffer-tmp-')) throw Object.assign(new Error('EXDEV'), { code: 'EXDEV', syscall: 'rename' });
        return nodeIo.rename(from, to);
      },
    };
    try {
      expect((await srv.fetch(`/api/resources/d?action=rename&destination=${dest('/e')}`, { method: 'PATCH', token: u.token })).status).toBe(200);
      expect((await srv.fetch(`/api/resources/f.txt?action=rename&destination=${dest('/e/f.txt')}`, { method: 'PATCH', token: u.token })).status).toBe(200);
    } finally {
      srv.deps.files.io = undefined;
    }
    expect(await exists(path.join(u.dir, 'd'))).toBe(false);
    expect(await exists(path.join(u.dir, 'f.txt'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'e/sub/b.txt'), 'utf8')).toBe('b');
    expect(await readFile(path.join(u.dir, 'e/f.txt'), 'utf8')).toBe('f');
  });

  it('copies a link to a folder as the folder it points to', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'real/x.txt', 'x');
    await symlink('real', path.join(u.dir, 'alias'));
    expect((await srv.fetch(`/api/resources/alias?action=copy&destination=${dest('/copy')}`, { method: 'PATCH', token: u.token })).status).toBe(200);
    expect((await lstat(path.join(u.dir, 'copy'))).isDirectory()).toBe(true);
    expect(await readFile(path.join(u.dir, 'copy/x.txt'), 'utf8')).toBe('x');
  });
});

describe('file events (docs/api.md §16.4)', () => {
  const srv = useServer();

  it('fires before and after each write with the item and destination', async () => {
    const u = await member(srv.get());
    const seen: string[] = [];
    const off = srv.deps.events.on((phase: Phase, event: FileEvent, ctx: FileEventContext) => {
      seen.push(`${phase}_${event} ${ctx.file.virtual}${ctx.destination ? ' ' + ctx.destination.virtual : ''}`);
    });
    try {
      await srv.fetch('/api/resources/a.txt', { method: 'POST', token: u.token, body: 'a' });
      await srv.fetch('/api/resources/d/', { method: 'POST', token: u.token });
      await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'b' });
      await srv.fetch(`/api/resources/a.txt?action=copy&destination=${dest('/c.txt')}`, { method: 'PATCH', token: u.token });
      await srv.fetch(`/api/resources/c.txt?action=rename&destination=${dest('/d/c.txt')}`, { method: 'PATCH', token: u.token });
      await srv.fetch('/api/resources/d', { method: 'DELETE', token: u.token });
    } finally {
      off();
    }
    expect(seen).toEqual([
      'before_upload /a.txt', 'after_upload /a.txt',
      'before_upload /d', 'after_upload /d',
      'before_save /a.txt', 'after_save /a.txt',
      'before_copy /a.txt /c.txt', 'after_copy /a.txt /c.txt',
      'before_rename /c.txt /d/c.txt', 'after_rename /c.txt /d/c.txt',
      'before_delete /d', 'after_delete /d',
    ]);
  });

  it('does not fire when a check refuses the request', async () => {
    const u = await member(srv.get(), { perm: { delete: false } });
    await put(u.dir, 'a.txt', 'a');
    let fired = 0;
    const off = srv.deps.events.on(() => void fired++);
    try {
      await srv.fetch('/api/resources/a.txt?override=false', { method: 'POST', token: u.token, body: 'x' }); // 409
      await srv.fetch('/api/resources/a.txt', { method: 'DELETE', token: u.token }); // 403
    } finally {
      off();
    }
    expect(fired).toBe(0);
  });

  it('aborts the operation with 500 when a before listener fails', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'a.txt', 'keep');
    const off = srv.deps.events.on((phase) => {
      if (phase === 'before') throw new Error('hook exited 1');
    });
    try {
      expect((await srv.fetch('/api/resources/n.txt', { method: 'POST', token: u.token, body: 'x' })).status).toBe(500);
      expect((await srv.fetch('/api/resources/a.txt', { method: 'PUT', token: u.token, body: 'x' })).status).toBe(500);
      expect((await srv.fetch('/api/resources/a.txt', { method: 'DELETE', token: u.token })).status).toBe(500);
    } finally {
      off();
    }
    expect(await exists(path.join(u.dir, 'n.txt'))).toBe(false);
    expect(await readFile(path.join(u.dir, 'a.txt'), 'utf8')).toBe('keep');
  });

  it('answers 500 when an after listener fails although the operation happened', async () => {
    const u = await member(srv.get());
    const off = srv.deps.events.on((phase) => {
      if (phase === 'after') throw new Error('after hook exited 1');
    });
    try {
      expect((await srv.fetch('/api/resources/n.txt', { method: 'POST', token: u.token, body: 'x' })).status).toBe(500);
    } finally {
      off();
    }
    expect(await readFile(path.join(u.dir, 'n.txt'), 'utf8')).toBe('x');
  });
});
