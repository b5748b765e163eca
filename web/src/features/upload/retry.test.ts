import { describe, expect, it } from 'vitest';
import { retryDelays, shouldRetry } from './retry';

describe('retry delays', () => {
  it('start at 0, then 1 s doubling, capped at 20 s', () => {
    expect(retryDelays(8)).toEqual([0, 1000, 2000, 4000, 8000, 16000, 20000, 20000]);
    expect(retryDelays(5)).toEqual([0, 1000, 2000, 4000, 8000]);
    expect(retryDelays(1)).toEqual([0]);
  });

  it('are none below 1', () => {
    expect(retryDelays(0)).toEqual([]);
    expect(retryDelays(-3)).toEqual([]);
    expect(retryDelays(Number.NaN)).toEqual([]);
  });
});

describe('which failures are retried', () => {
  it.each([0, 423, 500, 502, 503])('retries %i', (status) => expect(shouldRetry(status)).toBe(true));
  it.each([400, 401, 403, 404, 409, 413, 415, 507])('gives up on %i', (status) =>
    expect(shouldRetry(status)).toBe(false),
  );
});
