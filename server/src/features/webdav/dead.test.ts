import { describe, expect, it } from 'vitest';
import { childPropsReader, PROPS_GROUP } from './dead.js';
import type { DeadProp } from './repository.js';

/** A repository of dead properties in memory that records what each query asked for. */
function fakeRepo(rows: (DeadProp & { resource: string })[]) {
  const asked: string[][] = [];
  return {
    asked,
    async childrenWithProps(key: string) {
      const prefix = key === '/' ? '/' : key + '/';
      return new Set(rows.map((r) => r.resource).filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes('/')));
    },
    async propsOf(keys: readonly string[]) {
      asked.push([...keys]);
      return rows.filter((r) => keys.includes(r.resource));
    },
  };
}

describe('dead properties of a Depth 1 listing', () => {
  it('are read a group at a time, only for the entries that hold some, never the whole folder at once', async () => {
    // 5,000 children, every other one with two properties; a grandchild and a sibling folder's child too.
    const rows = Array.from({ length: 5000 }, (_, i) => i)
      .filter((i) => i % 2 === 0)
      .flatMap((i) => [
        { resource: `/big/e${i}`, ns: 'urn:z', name: 'a', value: `a${i}` },
        { resource: `/big/e${i}`, ns: 'urn:z', name: 'b', value: `b${i}` },
      ]);
    rows.push({ resource: '/big/e1/deeper', ns: 'urn:z', name: 'a', value: 'no' }, { resource: '/bigger/e1', ns: 'urn:z', name: 'a', value: 'no' });
    const repo = fakeRepo(rows);
    const read = (await childPropsReader(repo, '/big'))!;
    expect(read).not.toBeNull();
    const keys = Array.from({ length: 5000 }, (_, i) => `/big/e${i}`);
    const seen = new Map<string, DeadProp[]>();
    // As the answer reads them: a group of keys per call (the route: PROPS_GROUP entries).
    for (let from = 0; from < keys.length; from += PROPS_GROUP) {
      for (const [k, v] of await read(keys.slice(from, from + PROPS_GROUP))) seen.set(k, v);
    }
    expect(seen.size).toBe(2500);
    expect(seen.get('/big/e42')).toEqual([{ ns: 'urn:z', name: 'a', value: 'a42' }, { ns: 'urn:z', name: 'b', value: 'b42' }]);
    expect(seen.has('/big/e1')).toBe(false);
    // No query asked for more than a group, nor for an entry without properties.
    expect(Math.max(...repo.asked.map((a) => a.length))).toBeLessThanOrEqual(PROPS_GROUP);
    expect(repo.asked.flat().every((k) => Number(k.slice('/big/e'.length)) % 2 === 0)).toBe(true);
    // A caller handing more keys at once still gets queries of a group each.
    repo.asked.length = 0;
    expect((await read(keys)).size).toBe(2500);
    expect(Math.max(...repo.asked.map((a) => a.length))).toBeLessThanOrEqual(PROPS_GROUP);
  });

  it('reads nothing more for a folder whose children hold none', async () => {
    const repo = fakeRepo([{ resource: '/big', ns: 'urn:z', name: 'own', value: 'x' }, { resource: '/big/sub/deep', ns: 'urn:z', name: 'a', value: 'y' }]);
    expect(await childPropsReader(repo, '/big')).toBeNull();
    expect(repo.asked).toEqual([]);
  });
});
