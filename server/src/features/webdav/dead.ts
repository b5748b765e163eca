/**
 * The dead properties of a folder's children for a PROPFIND Depth 1, read a group of entries at a
 * time as the answer is written: a resource may hold up to MAX_PROPS_TOTAL characters of values
 * (service.ts), so a folder of 100,000 entries with properties must never have them all in memory.
 * Up front only the keys of the children that hold any are read (one short string each, like the
 * folder's names); their values come PROPS_GROUP entries at a time, for those entries only.
 */
import type { DavRepository, DeadProp } from './repository.js';

/** Entries whose properties are read, and held, at once (at most 64 × 256 KiB of values). */
export const PROPS_GROUP = 64;

/**
 * For the folder `dirKey` (a storage key): null when no child holds a property (a listing then
 * reads nothing more), else a reader that answers the properties of a group of child keys, at
 * most PROPS_GROUP a query. Keys without properties are not asked for; absent from the map.
 */
export async function childPropsReader(
  repo: Pick<DavRepository, 'childrenWithProps' | 'propsOf'>,
  dirKey: string,
): Promise<((keys: readonly string[]) => Promise<Map<string, DeadProp[]>>) | null> {
  const holders = await repo.childrenWithProps(dirKey);
  if (holders.size === 0) return null;
  return async (keys) => {
    const byKey = new Map<string, DeadProp[]>();
    const wanted = keys.filter((key) => holders.has(key));
    for (let from = 0; from < wanted.length; from += PROPS_GROUP) {
      for (const r of await repo.propsOf(wanted.slice(from, from + PROPS_GROUP))) {
        let list = byKey.get(r.resource);
        if (!list) byKey.set(r.resource, (list = []));
        list.push({ ns: r.ns, name: r.name, value: r.value });
      }
    }
    return byKey;
  };
}
