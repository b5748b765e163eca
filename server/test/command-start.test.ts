/**
 * The start-up warnings of the built server (api.md §18, S70, S71): execution enabled, and a
 * shell set in the settings.
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
