import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isReserved, reservePath, reservedNamesIn } from './reserved.js';

describe('reserved paths', () => {
  it('names the reserved entries of one folder, whatever the spelling of the folder', async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'coffer-reserved-')));
    await reservePath(path.join(dir, 'coffer.db'));
    await reservePath(path.join(dir, 'cache', 'previews'));
    expect([...reservedNamesIn(dir)]).toEqual(['coffer.db']);
    expect([...reservedNamesIn(dir + '/')]).toEqual(['coffer.db']);
    expect([...reservedNamesIn(path.join(dir, 'cache'))]).toEqual(['previews']);
    expect(reservedNamesIn(path.join(dir, 'other')).size).toBe(0);
    expect(reservedNamesIn(dir).has('coffer.db.txt')).toBe(false);
    expect(isReserved(path.join(dir, 'cache', 'previews', 'a.jpg'))).toBe(true);
  });
});
