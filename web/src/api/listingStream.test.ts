import { describe, expect, it } from 'vitest';
import { itemsStart, ListingReader, readResource } from './listingStream';
import type { Resource, ResourceItem } from './resources';

const item = (name: string, extra: object = {}) => ({
  path: `/d/${name}`,
  name,
  size: 1,
  extension: '',
  modified: '2024-01-01T00:00:00Z',
  mode: 420,
  isDir: false,
  isSymlink: false,
  type: 'text',
  ...extra,
});

/** A folder answer as the server writes it: own fields, then items, then the counts. */
function folderText(items: object[], pretty = false): string {
  const value = {
    path: '/d/',
    name: 'd',
    size: 4096,
    isDir: true,
    type: '',
    items,
    numDirs: 0,
    numFiles: items.length,
    sorting: { by: 'name', asc: false },
  };
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** Reads `text` in the given pieces; returns the result and the item counts each call saw. */
function read(pieces: string[]): { result: Resource; seen: number[]; heads: Resource[] } {
  const seen: number[] = [];
  const heads: Resource[] = [];
  const reader = new ListingReader<Resource>((head, items) => {
    seen.push(items.length);
    heads.push(head);
  });
  for (const p of pieces) reader.push(p);
  return { result: reader.finish(), seen, heads };
}

const tricky = [
  item('plain.txt'),
  item('with "quotes" and \\backslash\\'),
  item('ends with backslash\\'),
  item('"items":[{"fake":1}]'),
  item('braces }{ ][ , :'),
  item('ünïcødé 📁 文件'),
  item('control\u0001\n\ttab'),
  item('photo.jpg', { type: 'image', resolution: { width: 10, height: 20 } }),
];

describe('ListingReader', () => {
  it('gives exactly what JSON.parse gives, however the text is cut in two', () => {
    const text = folderText(tricky);
    const whole = JSON.parse(text) as Resource;
    for (let cut = 0; cut <= text.length; cut++) {
      expect(read([text.slice(0, cut), text.slice(cut)]).result).toEqual(whole);
    }
  });

  it('gives the same one character at a time, and pretty-printed', () => {
    const text = folderText(tricky);
    const { result, seen } = read([...text]);
    expect(result).toEqual(JSON.parse(text));
    // Each item is handed out once the next one begins (the last with the whole), in order.
    expect(seen).toEqual(tricky.slice(1).map((_, i) => i + 1));
    // Spaced-out JSON (not what the server writes) is read whole.
    const pretty = folderText(tricky, true);
    expect(read([...pretty])).toMatchObject({ result: JSON.parse(pretty), seen: [] });
  });

  it("hands out the items so far with the folder's own fields while the answer is still coming", () => {
    const text = folderText(tricky);
    const middle = text.indexOf('"name":"braces');
    const reader = new ListingReader<Resource>((head, items) => {
      expect(head).toMatchObject({ path: '/d/', name: 'd', isDir: true, items: [] });
      calls.push(items.map((i: ResourceItem) => i.name));
    });
    const calls: string[][] = [];
    reader.push(text.slice(0, middle));
    expect(calls.at(-1)).toEqual(tricky.slice(0, 4).map((i) => i.name));
    reader.push(text.slice(middle));
    expect(calls.at(-1)).toEqual(tricky.slice(0, -1).map((i) => i.name));
    const whole = reader.finish();
    expect(whole.items?.map((i) => i.name)).toEqual(tricky.map((i) => i.name));
    expect(whole.numFiles).toBe(tricky.length);
  });

  it('reads an empty folder, a file, and answers without an items array whole', () => {
    for (const text of [
      folderText([]),
      JSON.stringify(item('a.txt', { content: 'hello "items":[' })),
      '{"items":null,"name":"x"}',
      '{"name":{"items":[1]},"items":[]}',
      '[]',
      '"text"',
      '{}',
    ]) {
      const { result, seen } = read([...text]);
      expect(result).toEqual(JSON.parse(text));
      expect(seen).toEqual([]);
    }
  });

  it('keeps streaming past names that hold the cut text, and still gives what JSON.parse gives', () => {
    const crafted = Array.from({ length: 8 }, (_, i) => item(i % 2 ? `x${i}},{` : `plain${i}`));
    const text = folderText(crafted);
    // Cut just after a `},{"` inside the last crafted name (its path holds one too).
    const inside = text.lastIndexOf('x7},{"') + 'x7},{"'.length;
    const seen: number[] = [];
    const reader = new ListingReader<Resource>((_, items) => seen.push(items.length));
    reader.push(text.slice(0, inside));
    expect(seen.at(-1)).toBe(7);
    reader.push(text.slice(inside));
    expect(reader.finish()).toEqual(JSON.parse(text));
    // Only such names: read whole, still right.
    const all = folderText(Array.from({ length: 30 }, (_, i) => item(`y${i}},{`)));
    for (let cut = 0; cut <= all.length; cut += 11) {
      expect(read([all.slice(0, cut), all.slice(cut)]).result).toEqual(JSON.parse(all));
    }
  });

  it('reads items holding arrays of objects whole, and still right', () => {
    const odd = [item('a', { tags: [{ x: 1 }, { y: 2 }] }), item('b', { tags: [{ z: 3 }, { w: 4 }] }), item('c')];
    const text = folderText(odd);
    for (let cut = 0; cut <= text.length; cut += 3) {
      expect(read([text.slice(0, cut), text.slice(cut)]).result).toEqual(JSON.parse(text));
    }
  });

  it('fails like JSON.parse on text that is not JSON, or that ends too soon', () => {
    expect(() => read(['{"items":[{"a":1},']).result).toThrow(SyntaxError);
    expect(() => read(['{"items":[{"a":1}, nonsense]}']).result).toThrow(SyntaxError);
    expect(() => read(['not json']).result).toThrow(SyntaxError);
    expect(() => read(['{"path":"/d/"']).result).toThrow(SyntaxError);
  });

  it('parses 100,000 items handed over in network-sized pieces', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => item(`file-${i}.txt`));
    const text = folderText(many);
    const pieces: string[] = [];
    for (let at = 0; at < text.length; at += 65_536) pieces.push(text.slice(at, at + 65_536));
    const { result, seen } = read(pieces);
    expect(result.items).toHaveLength(100_000);
    expect(result.items?.[99_999]).toEqual(many[99_999]);
    expect(seen.length).toBeGreaterThan(100);
  });
});

describe('itemsStart', () => {
  it('finds the array after other fields, needs more text, or says there is none', () => {
    expect(itemsStart('{"a":1,"b":{"c":[1,2]},"items":[')).toBe(32);
    expect(itemsStart('{"a":"x\\"y","items" : [ {')).toBe(23);
    expect(itemsStart('{"a":1,"ite')).toBe(-1);
    expect(itemsStart('{"a":tr')).toBe(-1);
    expect(itemsStart('{"a":true}')).toBeNull();
    expect(itemsStart('{"items":{}}')).toBeNull();
  });
});

describe('readResource', () => {
  it('reads a streamed body in its pieces, multi-byte characters cut between them', async () => {
    const bytes = new TextEncoder().encode(folderText(tricky));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let at = 0; at < bytes.length; at += 7) c.enqueue(bytes.slice(at, at + 7));
        c.close();
      },
    });
    const seen: number[] = [];
    const result = await readResource<Resource>(new Response(body), (_, items) => seen.push(items.length));
    expect(result).toEqual(JSON.parse(folderText(tricky)));
    expect(seen.at(-1)).toBe(tricky.length - 1);
  });

  it('turns a body cut off by an abort into an ApiError marked canceled', async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        source = c;
        c.enqueue(new TextEncoder().encode('{"items":['));
      },
    });
    const reading = readResource(new Response(body));
    source.error(new DOMException('The user aborted a request.', 'AbortError'));
    await expect(reading).rejects.toMatchObject({ status: 0, canceled: true });
  });

  it('an answer whose head is not JSON fails as JSON.parse does, not as a lost connection', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"name":tru,"items":[{"a":1},{"b":2}]}'));
        c.close();
      },
    });
    await expect(readResource(new Response(body))).rejects.toBeInstanceOf(SyntaxError);
  });

  it('turns a broken connection into "000 No connection"', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.error(new TypeError('network error'));
      },
    });
    await expect(readResource(new Response(body))).rejects.toMatchObject({
      status: 0,
      canceled: false,
      message: '000 No connection',
    });
  });
});
