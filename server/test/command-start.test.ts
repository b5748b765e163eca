/**
 * The start-up warnings of the built server (docs/api.md §16, S70, S71): execution enabled, and a
 * shell set in the settings; and the refusal to start with execution on but no sandbox (issue 17).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, run, serve, workspace, type ServeProcess, type Workspace } from './cli-process.js';

let ws: Workspace | undefined;
let servers: ServeProcess[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const s of servers) await s.stop();
  servers = [];
  await ws?.dispose();
  ws = undefined;
});

const ADMIN = { COFFER_ADMIN_PASSWORD: 'a-long-enough-password' };
const EXEC_ON = /"level":40,.*command execution is enabled/;
const SHELL_SET = /"level":40,.*settings\.shell is set/;

async function start(w: Workspace, env: Record<string, string> = {}): Promise<ServeProcess> {
  const s = await serve(w, ['--root', w.root, '--database', w.database, '--address', '127.0.0.1', '--port', '0'], { ...ADMIN, ...env });
  servers.push(s);
  return s;
}

describe('start-up warnings', { timeout: 90_000 }, () => {
  it('says nothing about commands by default', async () => {
    ws = await workspace();
    const s = await start(ws);
    expect(s.lines.filter((l) => EXEC_ON.test(l) || SHELL_SET.test(l))).toEqual([]);
  });

  it('warns when execution is enabled, and again while a shell is set', async () => {
    ws = await workspace();
    const first = await start(ws, { COFFER_DISABLE_EXEC: 'false' });
    expect(first.lines.some((l) => EXEC_ON.test(l))).toBe(true);
    expect(first.lines.some((l) => SHELL_SET.test(l))).toBe(false);
    await first.stop();
    const set = await run(ws, ['config', 'set', '--database', ws.database, '--shell', 'sh -c']);
    expect(set.code, set.stderr).toBe(0);
    const second = await start(ws, { COFFER_DISABLE_EXEC: 'false' });
    const line = second.lines.find((l) => SHELL_SET.test(l));
    expect(line).toMatch(/every user with the execute permission can run anything through it/);
    expect(JSON.parse(line!).shell).toEqual(['sh', '-c']);
  });

  it('warns about a set shell even while execution is off', async () => {
    ws = await workspace();
    await (await start(ws)).stop();
    const set = await run(ws, ['config', 'set', '--database', ws.database, '--shell', 'bash -c']);
    expect(set.code, set.stderr).toBe(0);
    const s = await start(ws);
    expect(s.lines.find((l) => SHELL_SET.test(l))).toMatch(/once command execution is enabled/);
  });
});

describe('execution on without a sandbox', { timeout: 90_000 }, () => {
  const args = (w: Workspace) => ['serve', '--root', w.root, '--database', w.database, '--address', '127.0.0.1', '--port', '0', '--disable-exec=false'];
  const UNCONFINED = /"level":40,.*--unsafe-unconfined-exec: commands and hooks run WITHOUT a sandbox/;

  it('refuses to start, naming what is missing and the way out, before the first admin is made', async () => {
    ws = await workspace();
    const r = await run(ws, [...args(ws), '--bwrap-path', '/nonexistent/bwrap']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^coffer: command execution is on \(--disable-exec=false\), but commands and hooks cannot be confined: bubblewrap was not found at "\/nonexistent\/bwrap"/);
    expect(r.stderr).toMatch(/pass --unsafe-unconfined-exec/);
    // The generated password of the first admin is not lost in a refused start: the next one prints it.
    const next = await start(ws, { COFFER_ADMIN_PASSWORD: '' });
    expect(next.lines.some((l) => /initialized with randomly generated password/.test(l))).toBe(true);
  });

  it('refuses to start when bubblewrap is there but a test run in it fails', async () => {
    ws = await workspace();
    const r = await run(ws, args(ws), { ...ADMIN, COFFER_BWRAP_PATH: '/bin/false' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be confined: a test run in the sandbox failed/);
  });

  it('starts with --unsafe-unconfined-exec (flag or environment) and says so', async () => {
    ws = await workspace();
    const flag = await serve(ws, [...args(ws).slice(1), '--bwrap-path', '/nonexistent/bwrap', '--unsafe-unconfined-exec'], ADMIN);
    servers.push(flag);
    expect(flag.lines.some((l) => UNCONFINED.test(l))).toBe(true);
    await flag.stop();
    const env = await start(ws, { COFFER_DISABLE_EXEC: 'false', COFFER_BWRAP_PATH: '/nonexistent/bwrap', COFFER_UNSAFE_UNCONFINED_EXEC: 'true' });
    expect(env.lines.some((l) => UNCONFINED.test(l))).toBe(true);
  });

  it('starts confined where bubblewrap works, without that warning', async () => {
    ws = await workspace();
    const s = await start(ws, { COFFER_DISABLE_EXEC: 'false' });
    expect(s.lines.some((l) => EXEC_ON.test(l))).toBe(true);
    expect(s.lines.some((l) => UNCONFINED.test(l))).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('warns, as root, that the process limit does not hold', async () => {
    const AS_ROOT = /"level":40,.*Coffer runs as root: Linux does not apply --command-process-limit/;
    ws = await workspace();
    const s = await start(ws, { COFFER_DISABLE_EXEC: 'false' });
    expect(s.lines.some((l) => AS_ROOT.test(l))).toBe(true);
    await s.stop();
    const off = await start(ws, { COFFER_DISABLE_EXEC: 'false', COFFER_COMMAND_PROCESS_LIMIT: '0' });
    expect(off.lines.some((l) => AS_ROOT.test(l))).toBe(false);
  });
});
