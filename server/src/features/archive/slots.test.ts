import { describe, expect, it } from 'vitest';
import { HttpError } from '../../http/errors.js';
import { ARCHIVE_RETRY_AFTER_S, createArchiveSlots } from './slots.js';

function refusal(fn: () => unknown): HttpError | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  return undefined;
}

describe('createArchiveSlots', () => {
  it('gives each client at most perClient and everyone at most total; past either 429 with Retry-After', () => {
    const slots = createArchiveSlots({ perClient: 2, total: 3 });
    const a1 = slots.take('a');
    slots.take('a');
    const refused = refusal(() => slots.take('a'));
    expect(refused?.status).toBe(429);
    expect(refused?.headers['Retry-After']).toBe(String(ARCHIVE_RETRY_AFTER_S));
    slots.take('b');
    expect(refusal(() => slots.take('c'))?.status).toBe(429);
    expect(slots.active).toBe(3);
    a1();
    expect(slots.active).toBe(2);
    expect(refusal(() => slots.take('c'))).toBeUndefined();
  });

  it('gives a slot back once, however often its release is called', () => {
    const slots = createArchiveSlots({ perClient: 1, total: 5 });
    const release = slots.take('a');
    release();
    release();
    expect(slots.active).toBe(0);
    slots.take('b');
    release();
    expect(slots.active).toBe(1);
    expect(refusal(() => slots.take('a'))).toBeUndefined();
  });

  it('has no limit where a limit is 0', () => {
    const slots = createArchiveSlots({ perClient: 0, total: 0 });
    for (let i = 0; i < 100; i++) slots.take('a');
    expect(slots.active).toBe(100);
  });
});
