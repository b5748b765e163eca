import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWorkerPools, statBatches, WORKER_NICE } from './worker-pool.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'coffer-pool-'));
  await writeFile(path.join(dir, 'a.txt'), 'hello');
});
afterAll(async () => {
  await closeWorkerPools();
  await rm(dir, { recursive: true, force: true });
});

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('the stat workers', () => {
  it('answer a batch of stats', async () => {
    const [part] = statBatches(dir, dir, [['a.txt', 'missing']]);
    const stats = await part!;
    expect(stats.size[0]).toBe(5);
    expect(stats.kind[1]).toBe(4); // gone
  });

  it.runIf(existsSync('/proc/thread-self'))('run below the main thread: their nice value is raised (Linux)', async () => {
    await Promise.all(statBatches(dir, dir, [['a.txt'], ['a.txt']]));
    const nices = threadNices();
    expect(nices.filter((n) => n === WORKER_NICE).length).toBeGreaterThanOrEqual(1);
    // The thread running the tests (and serving requests in the server) keeps its own.
    expect(nices[0]).toBe(0);
  });
});
