import { describe, expect, it } from 'vitest';
import { overrideFlag, queryFlag } from './query.js';

describe('query flags (docs/api.md §7.7)', () => {
  it('are on only for exactly "true"', () => {
    expect(queryFlag('true')).toBe(true);
    for (const v of ['TRUE', 'True', '1', 'yes', '', ' true', undefined, null, ['true'], true]) expect(queryFlag(v)).toBe(false);
  });

  it('reads override=true only', () => {
    expect(overrideFlag({ override: 'true' })).toBe(true);
    for (const v of ['false', 'TRUE', '1', '', undefined, ['true', 'true']]) expect(overrideFlag({ override: v })).toBe(false);
    expect(overrideFlag(undefined)).toBe(false);
  });
});
