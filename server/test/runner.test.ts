/**
 * Event hooks (docs/api.md §16.3, S70, S72): the runner on its own with real processes in the
 * sandbox (features/command/confine.ts; the scope of these runs is the temp folder), then wired to the
 * file routes over HTTP.
 */
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner, HookError, type HookValues } from '../src/features/runner/service.js';
import { createConfinement, type Confinement } from '../src/features/command/confine.js';
import { defaults } from '../src/config/load.js';
import { eventually, marker, processesWith, sleepers } from './command-helpers.js';
import { useServer } from './harness.js';

let dir = '';
let record = '';
let confinement: Confinement;

/** A program that appends its environment's event values and its argv to the file named by $1. */
const RECORDER = `#!/bin/sh
out="$1"; shift
{
  printf 'TRIGGER=%s\\n' "$TRIGGER"
  printf 'FILE=%s\\n' "$FILE"
  printf 'SCOPE=%s\\n' "$SCOPE"
  printf 'USERNAME=%s\\n' "$USERNAME"
  printf 'DESTINATION=%s\\n' "$DESTINATION"
  printf 'ARGC=%s\\n' "$#"
  for a in "$@"; do printf 'ARG=%s\\n' "$a"; done
} >> "$out"
`;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'coffer-runner-')));
  record = path.join(dir, 'record.sh');
  await writeFile(record, RECORDER);
  await chmod(record, 0o755);
  confinement = (await createConfinement({ ...defaults(), root: dir, disableExec: false }))!;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function fields(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { ARG: [] };
  for (const line of text.split('\n').filter(Boolean)) {
    const eq = line.indexOf('=');
    const k = line.slice(0, eq);
    const v = line.slice(eq + 1);
    if (k === 'ARG') (out.ARG as string[]).push(v);
    else out[k] = v;
  }
  return out;
}

interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

function setup(commands: Record<string, string[]>, o: { shell?: string[]; disableExec?: boolean; commandTimeout?: number } = {}) {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg });
  const runner = createRunner({
    config: { disableExec: o.disableExec ?? false, commandTimeout: o.commandTimeout ?? 30, commandOutputLimit: 1024 * 1024 },
    settings: { settings: async () => ({ shell: o.shell ?? [], commands }) },
    log: { info: at('info'), warn: at('warn'), error: at('error') } as never,
    confinement,
  });
  return { runner, lines };
}

const values = (over: Partial<HookValues> = {}): HookValues => ({
  file: '/srv/root/docs/a b.txt',
  scope: '/docs',
  username: 'ann',
  destination: '/srv/root/docs',
  root: dir,
  ...over,
});

describe('runner (docs/api.md §16.5, §16.6)', () => {
  it('runs every line of the trigger in order with the event values in the environment', async () => {
    const out = path.join(dir, `order-${marker()}`);
    const { runner } = setup({ before_save: [`${record} ${out} one`, '', `${record} ${out} two`], after_save: [`${record} ${out} after`] });
    await runner.run('before_save', values());
    const text = await readFile(out, 'utf8');
    const runs = text.split('TRIGGER=').filter(Boolean).map((t) => fields(`TRIGGER=${t}`));
    expect(runs.map((r) => r.ARG)).toEqual([['one'], ['two']]);
    expect(runs[0]).toMatchObject({ TRIGGER: 'before_save', FILE: '/srv/root/docs/a b.txt', SCOPE: '/docs', USERNAME: 'ann', DESTINATION: '/srv/root/docs' });
  });

  it('expands $NAME and ${NAME} inside single arguments: a file name stays one argument and is never code (S72)', async () => {
    const m = marker();
    const out = path.join(dir, `expand-${m}`);
    const evil = path.join(dir, `$(touch pwned${m}) ; touch also${m} \`id\`.txt`);
    // Other names come from the hook's own environment (HOME is the sandbox's), never the server's.
    process.env.SERVER_VAR = 'from-env';
    try {
      const { runner } = setup({ after_upload: [`${record} ${out} $FILE x\${USERNAME}y "$TRIGGER two" $DESTINATION $HOME [$SERVER_VAR] [$UNSET_VAR_${m}]`] });
      await runner.run('after_upload', values({ file: evil }));
    } finally {
      delete process.env.SERVER_VAR;
    }
    const r = fields(await readFile(out, 'utf8'));
    expect(r.ARG).toEqual([evil, 'xanny', 'after_upload two', '/srv/root/docs', '/tmp', '[]', '[]']);
    expect(r.ARGC).toBe('7');
    for (const where of [process.cwd(), dir]) {
      expect(existsSync(path.join(where, `pwned${m}`))).toBe(false);
      expect(existsSync(path.join(where, `also${m}`))).toBe(false);
    }
  });

  it('with settings.shell hands the line to the shell unchanged; values only in the environment (S72)', async () => {
    const m = marker();
    const out = path.join(dir, `shell-${m}`);
    const evil = path.join(dir, `$(touch pwned${m}).txt`);
    const { runner } = setup({ before_delete: [`printf '%s|%s\\n' "$FILE" "$TRIGGER" > ${out}; echo '$USERNAME' >> ${out}`] }, { shell: ['sh', '-c'] });
    await runner.run('before_delete', values({ file: evil }));
    expect(await readFile(out, 'utf8')).toBe(`${evil}|before_delete\n$USERNAME\n`);
    expect(existsSync(path.join(dir, `pwned${m}`))).toBe(false);
    expect(existsSync(path.join(process.cwd(), `pwned${m}`))).toBe(false);
  });

  it('without a shell, operators are arguments, not commands', async () => {
    const m = marker();
    const out = path.join(dir, `ops-${m}`);
    const { runner } = setup({ before_copy: [`${record} ${out} a; touch ${dir}/semi${m} && touch ${dir}/and${m}`] });
    await runner.run('before_copy', values());
    expect(fields(await readFile(out, 'utf8')).ARG).toEqual(['a;', 'touch', `${dir}/semi${m}`, '&&', 'touch', `${dir}/and${m}`]);
    expect(existsSync(path.join(dir, `semi${m}`))).toBe(false);
  });

  it('stops at the first failing line and throws a HookError naming it', async () => {
    const out = path.join(dir, `fail-${marker()}`);
    const { runner, lines } = setup({ before_rename: [`${record} ${out} first`, 'sh -c "exit 3"', `${record} ${out} never`] });
    const err = await runner.run('before_rename', values()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookError);
    expect((err as Error).message).toBe('before_rename hook "sh -c \\"exit 3\\"" failed: exited with status 3');
    expect(fields(await readFile(out, 'utf8')).ARG).toEqual(['first']);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'hook failed')).toBe(true);
  });

  it('fails on a line that does not split or a program that cannot start', async () => {
    const { runner } = setup({ before_save: ['echo "open'], after_save: ['no-such-program-c0ffee arg'] });
    await expect(runner.run('before_save', values())).rejects.toThrow(/error parsing command/);
    await expect(runner.run('after_save', values())).rejects.toThrow(/could not start/);
  });

  it('does not wait for a line ending in &, and only a start failure counts', async () => {
    const m = marker();
    const { runner, lines } = setup({ after_copy: [`sleep 1${m} &`, 'false &'], before_copy: ['no-such-program-c0ffee &'] });
    const t0 = Date.now();
    await runner.run('after_copy', values());
    expect(Date.now() - t0).toBeLessThan(1000);
    // Started means the sandbox started: the program inside appears a moment later.
    expect(await eventually(() => sleepers(`1${m}`).length === 1)).toBe(true);
    await expect(runner.run('before_copy', values())).rejects.toThrow(/could not start/);
    expect(await eventually(() => lines.some((l) => l.msg === 'background hook failed' && /status 1/.test(String(l.obj.reason))))).toBe(true);
    runner.stopAll();
    expect(await eventually(() => sleepers(`1${m}`).length === 0)).toBe(true);
  });

  it('kills a hook that outlives the time limit, with its children, and fails', async () => {
    const m = marker();
    const { runner, lines } = setup({ before_upload: [`sh -c 'sleep 2${m} & sleep 3${m}'`] }, { commandTimeout: 0.5 });
    await expect(runner.run('before_upload', values())).rejects.toThrow(/time limit/);
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
    expect(lines.at(-1)?.msg).toBe('hook failed');
  });

  it('sends the output to the log and runs in the scope root', async () => {
    const { runner, lines } = setup({ after_delete: ['pwd', 'sh -c "echo to-stderr >&2"'] });
    await runner.run('after_delete', values());
    const out = lines.filter((l) => l.msg === 'hook output').map((l) => [l.obj.stream, l.obj.text]);
    expect(out).toEqual([
      ['stdout', dir],
      ['stderr', 'to-stderr'],
    ]);
  });

  it('runs nothing while execution is disabled', async () => {
    const out = path.join(dir, `off-${marker()}`);
    const { runner } = setup({ before_save: [`${record} ${out}`, 'false'] }, { disableExec: true });
    await runner.run('before_save', values());
    expect(existsSync(out)).toBe(false);
  });

  it('ignores triggers without lines', async () => {
    const { runner } = setup({});
    await runner.run('before_save', values());
  });
});

async function setHooks(srv: ReturnType<typeof useServer>, commands: Record<string, string[]>) {
  const s = await srv.deps.settings.settings();
  await srv.deps.settings.saveSettings({ ...s, commands: { ...s.commands, ...commands } });
}

describe('hooks around the file routes with execution on (docs/api.md §16.4, §16.5)', () => {
  const srv = useServer({ disableExec: false });
  let scopeDir = '';
  let token = '';
  let username = '';
  // A hook sees only the acting user's scope: the recorder and its output live in it.
  let hooks = '';
  let scopedRecord = '';

  beforeAll(async () => {
    await mkdir(path.join(srv.root, 'team'), { recursive: true });
    scopeDir = await realpath(path.join(srv.root, 'team'));
    hooks = path.join(scopeDir, '.hooks');
    scopedRecord = path.join(hooks, 'record.sh');
    await mkdir(hooks);
    await writeFile(scopedRecord, RECORDER);
    await chmod(scopedRecord, 0o755);
    const u = await srv.createUser({ scope: '/team' });
    username = u.username;
    token = await srv.login(u.username, u.password);
  });

  it('a failing before_save aborts the save with 500 and leaves the file as it was', async () => {
    await writeFile(path.join(scopeDir, 'keep.txt'), 'old');
    await setHooks(srv, { before_save: ['false'], after_save: [] });
    const res = await srv.fetch('/api/resources/keep.txt', { method: 'PUT', token, body: 'new' });
    expect(res.status).toBe(500);
    expect(await readFile(path.join(scopeDir, 'keep.txt'), 'utf8')).toBe('old');
  });

  it('before and after hooks see the item, the user and the scope root', async () => {
    const out = path.join(hooks, `http-${marker()}`);
    await writeFile(path.join(scopeDir, 'doc.txt'), 'v1');
    await setHooks(srv, { before_save: [`${scopedRecord} ${out} $FILE`], after_save: [`${scopedRecord} ${out}`] });
    const res = await srv.fetch('/api/resources/doc.txt', { method: 'PUT', token, body: 'v2' });
    expect(res.status).toBe(200);
    const runs = (await readFile(out, 'utf8')).split('TRIGGER=').filter(Boolean).map((t) => fields(`TRIGGER=${t}`));
    const file = path.join(scopeDir, 'doc.txt');
    expect(runs).toEqual([
      { TRIGGER: 'before_save', FILE: file, SCOPE: '/team', USERNAME: username, DESTINATION: scopeDir, ARGC: '1', ARG: [file] },
      { TRIGGER: 'after_save', FILE: file, SCOPE: '/team', USERNAME: username, DESTINATION: scopeDir, ARGC: '0', ARG: [] },
    ]);
  });

  it('a rename passes its destination', async () => {
    const out = path.join(hooks, `rename-${marker()}`);
    await writeFile(path.join(scopeDir, 'from.txt'), 'x');
    await setHooks(srv, { before_rename: [`${scopedRecord} ${out}`] });
    const res = await srv.fetch(`/api/resources/from.txt?action=rename&destination=${encodeURIComponent('/to.txt')}`, { method: 'PATCH', token });
    expect(res.status).toBe(200);
    expect(fields(await readFile(out, 'utf8'))).toMatchObject({ TRIGGER: 'before_rename', FILE: path.join(scopeDir, 'from.txt'), DESTINATION: path.join(scopeDir, 'to.txt') });
  });

  it('a failing before_delete keeps the file', async () => {
    await writeFile(path.join(scopeDir, 'stay.txt'), 'x');
    await setHooks(srv, { before_delete: ['sh -c "exit 1"'] });
    const res = await srv.fetch('/api/resources/stay.txt', { method: 'DELETE', token });
    expect(res.status).toBe(500);
    expect(existsSync(path.join(scopeDir, 'stay.txt'))).toBe(true);
  });

  it('a failing after_ hook answers 500 although the operation happened', async () => {
    await setHooks(srv, { before_upload: [], after_upload: ['false'] });
    const res = await srv.fetch('/api/resources/made.txt', { method: 'POST', token, body: 'data' });
    expect(res.status).toBe(500);
    expect(await readFile(path.join(scopeDir, 'made.txt'), 'utf8')).toBe('data');
  });
});

describe('hooks with execution off (the default, S70)', () => {
  const srv = useServer();

  it('never run: a before hook that would fail does not stop the save', async () => {
    const out = path.join(dir, `never-${marker()}`);
    await writeFile(path.join(srv.root, 'f.txt'), 'old');
    await setHooks(srv, { before_save: ['false', `${record} ${out}`], after_save: [`${record} ${out}`] });
    const res = await srv.fetch('/api/resources/f.txt', { method: 'PUT', token: await srv.login(), body: 'new' });
    expect(res.status).toBe(200);
    expect(await readFile(path.join(srv.root, 'f.txt'), 'utf8')).toBe('new');
    expect(existsSync(out)).toBe(false);
  });
});
