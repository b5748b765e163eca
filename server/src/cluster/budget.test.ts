import { describe, expect, it } from 'vitest';
import { MAX_WORKERS, parseWorkers, shareOf } from './budget.js';

describe('--workers (cluster/budget.ts)', () => {
  it('reads a count or auto', () => {
    expect(parseWorkers('1', 8)).toBe(1);
    expect(parseWorkers(' 4 ', 8)).toBe(4);
    expect(parseWorkers('auto', 8)).toBe(8);
    expect(parseWorkers('AUTO', 2)).toBe(2);
    expect(parseWorkers('auto', 500)).toBe(MAX_WORKERS);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '0', '-1', '65', '1.5', '2e1', 'two', '0x2', '999999', 'auto,2']) expect(parseWorkers(bad, 8), bad).toBeNull();
  });

  it("splits the box's budgets among the workers, never below one", () => {
    expect(shareOf(4, 1)).toBe(4);
    expect(shareOf(4, 2)).toBe(2);
    expect(shareOf(3, 2)).toBe(1);
    expect(shareOf(2, 8)).toBe(1);
    expect(shareOf(0, 4)).toBe(0); // "no limit" stays so
  });
});

describe('--workers in the configuration', () => {
  it('is read from the flag, the variable or the file, and refused when not a count or auto', async () => {
    const { loadConfig } = await import('../config/load.js');
    expect(loadConfig({ workers: '2' }, {}, null).explicit.workers).toBe('2');
    expect(loadConfig({}, { COFFER_WORKERS: 'auto' }, null).explicit.workers).toBe('auto');
    expect(loadConfig({}, {}, { name: 'c.json', text: '{"workers": "4"}' }).explicit.workers).toBe('4');
    for (const bad of ['0', 'many', '100', '-2']) expect(loadConfig({ workers: bad }, {}, null).errors).toEqual(['workers: expected a number from 1 to 64, or auto']);
  });
});
