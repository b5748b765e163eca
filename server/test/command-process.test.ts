/** runGroup with real processes: lines, order, limits and the process group (S71). */
import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, runGroup, type GroupRun, type StreamName } from '../src/features/command/process.js';
import { eventually, marker, processesWith, sleepers } from './command-helpers.js';

function collect(file: string, args: string[], over: Partial<Parameters<typeof runGroup>[2]> = {}) {
  const lines: [StreamName, string][] = [];
  const registry = new Set<GroupRun>();
  const run = runGroup(file, args, { env: process.env, timeoutMs: 10_000, outputLimit: 0, onLine: (l, s) => lines.push([s, l]), registry, ...over });
  return { run, lines, registry };
}

describe('runGroup', () => {
  it('splits output into lines without terminators, CRLF included, and keeps empty lines', async () => {
    const { run, lines } = collect('printf', ['a\\r\\n\\nb\\nlast']);
    expect(await run.done).toEqual({ kind: 'exited', code: 0, signal: null });
    expect(lines).toEqual([['stdout', 'a'], ['stdout', ''], ['stdout', 'b'], ['stdout', 'last']]);
  });

  it('decodes UTF-8 split across chunks and cuts endless lines into bounded pieces', async () => {
    const { run, lines } = collect('sh', ['-c', `printf 'é'; head -c ${MAX_LINE_CHARS * 2 + 10} /dev/zero | tr '\\0' x`]);
    await run.done;
    expect(lines[0]![1].startsWith('éx')).toBe(true);
    expect(lines.every(([, l]) => l.length <= MAX_LINE_CHARS)).toBe(true);
    expect(lines.map(([, l]) => l).join('')).toBe(`é${'x'.repeat(MAX_LINE_CHARS * 2 + 10)}`);
  });

  it('delivers stdout before stderr when asked', async () => {
    const { run, lines } = collect('sh', ['-c', 'echo e1 >&2; echo o1; echo e2 >&2; echo o2'], { stdoutFirst: true });
    await run.done;
    expect(lines).toEqual([['stdout', 'o1'], ['stdout', 'o2'], ['stderr', 'e1'], ['stderr', 'e2']]);
  });

  it('reports a program that cannot start and rejects `started`', async () => {
    const { run, registry } = collect('no-such-program-c0ffee', []);
    await expect(run.started).rejects.toThrow();
    expect((await run.done).kind).toBe('not-started');
    expect(registry.size).toBe(0);
  });

  it('ends a stopped run even while its output is paused, and kills the group', async () => {
    const m = marker();
    const { run, registry } = collect('sh', ['-c', `sleep 1${m} & yes paused${m}`]);
    await run.started;
    run.pause();
    expect(await eventually(() => sleepers(`1${m}`).length === 1)).toBe(true);
    run.stop();
    expect(await run.done).toEqual({ kind: 'stopped' });
    expect(registry.size).toBe(0);
    expect(await eventually(() => processesWith(m).length === 0)).toBe(true);
  });

  it('ends a paused run at the time limit', async () => {
    const m = marker();
    const { run } = collect('yes', [`timed${m}`], { timeoutMs: 300 });
    await run.started;
    run.pause();
    expect(await run.done).toEqual({ kind: 'timeout' });
    expect(await eventually(() => processesWith(`timed${m}`).length === 0)).toBe(true);
  });

  it('stops delivering at the output limit', async () => {
    const { run, lines } = collect('yes', ['0123456789'], { outputLimit: 1000 });
    expect(await run.done).toEqual({ kind: 'output-limit' });
    expect(lines.length).toBeLessThanOrEqual(Math.ceil(1000 / 11));
  });

  it('kills what the program left running when it exits', async () => {
    const m = marker();
    const { run } = collect('sh', ['-c', `sleep 2${m} & exit 0`]);
    expect(await run.done).toEqual({ kind: 'exited', code: 0, signal: null });
    expect(await eventually(() => sleepers(`2${m}`).length === 0)).toBe(true);
  });
});
