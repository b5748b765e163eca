/**
 * The JSON the server writes as text, checked against packages/protocol: the order of a listing's
 * fields (which the web client's streaming reader relies on) and the fields of every item.
 */
import { FileInfo, FolderListing, LISTING_FIELD_ORDER, RecursiveEntry, ResourceItem } from '@coffer/protocol';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';
import { member, put } from './resources-support.js';

const ajv = new Ajv({ strict: false });
const ITEM_KEYS = Object.keys(ResourceItem.properties);

describe('answers written as text follow packages/protocol', () => {
  const srv = useServer();

  it('a folder listing: the folder, then sorting before items, then the counts (LISTING_FIELD_ORDER)', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'docs/a.txt', 'hello');
    await put(u.dir, 'docs/sub/b.txt', 'x');
    const res = await srv.fetch('/api/resources/docs/', { token: u.token });
    expect(res.status).toBe(200);
    const text = await res.text();
    const listing = JSON.parse(text) as Record<string, unknown> & { items: Record<string, unknown>[] };
    expect(Object.keys(listing)).toEqual(LISTING_FIELD_ORDER);
    expect(text.indexOf('"sorting"')).toBeLessThan(text.indexOf('"items"'));
    expect(LISTING_FIELD_ORDER.indexOf('sorting')).toBeLessThan(LISTING_FIELD_ORDER.indexOf('items'));
    expect(listing.items).toHaveLength(2);
    for (const item of listing.items) expect(Object.keys(item)).toEqual(ITEM_KEYS);
    expect(ajv.validate(FolderListing, listing), ajv.errorsText()).toBe(true);
  });

  it("a file's description: the item's fields in order, then content", async () => {
    const u = await member(srv.get());
    await put(u.dir, 'note.txt', 'hello');
    const info = (await (await srv.fetch('/api/resources/note.txt', { token: u.token })).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(info)).toEqual([...ITEM_KEYS, 'content']);
    expect(ajv.validate(FileInfo, info), ajv.errorsText()).toBe(true);
  });

  it('the recursive listing: RecursiveEntry rows', async () => {
    const u = await member(srv.get());
    await put(u.dir, 'tree/a/b.txt', 'x');
    const rows = (await (
      await srv.fetch('/api/resources/recursive/tree/', { token: u.token })
    ).json()) as Record<string, unknown>[];
    expect(rows.length).toBe(2);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(Object.keys(RecursiveEntry.properties));
      expect(ajv.validate(RecursiveEntry, row), ajv.errorsText()).toBe(true);
    }
  });
});
