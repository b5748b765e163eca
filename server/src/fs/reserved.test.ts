import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isReserved, reservePath, reservedNamesIn, reservedWithin } from './reserved.js';

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

describe('reservedWithin', () => {
  it('lists the reserved paths at or below a folder with their kind, under their real names too', async () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'coffer-within-')));
    const scope = path.join(base, 'scope');
    mkdirSync(path.join(scope, 'data'), { recursive: true });
    writeFileSync(path.join(scope, 'own.db'), 'x');
    symlinkSync(scope, path.join(base, 'via-link'));
    await reservePath(path.join(base, 'via-link', 'own.db')); // registered through a link
    await reservePath(path.join(scope, 'own.db-journal')); // not there (yet)
    await reservePath(path.join(scope, 'data'));
    await reservePath(path.join(base, 'elsewhere.db'));
    expect(await reservedWithin(scope)).toEqual([
      { path: path.join(scope, 'data'), kind: 'dir' },
      { path: path.join(scope, 'own.db'), kind: 'file' },
      { path: path.join(scope, 'own.db-journal'), kind: 'missing' },
    ]);
    expect(await reservedWithin(path.join(base, 'other'))).toEqual([]);
    // A folder inside a reserved one is reserved as a whole.
    expect(await reservedWithin(path.join(scope, 'data'))).toEqual([{ path: path.join(scope, 'data'), kind: 'dir' }]);
  });
});
