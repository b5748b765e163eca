import { describe, expect, it } from 'vitest';
import type { Resource, ResourceItem } from '../../api/resources';
import { fileNeighbours } from './neighbours';

const item = (name: string, extra: Partial<ResourceItem> = {}): ResourceItem => ({
  path: `/pics/${name}`,
  name,
  size: 1,
  modified: '2024-01-01T00:00:00Z',
  isDir: false,
  type: 'image',
  ...extra,
});

const folder = (items: ResourceItem[], sorting?: Resource['sorting']): Resource => ({
  ...item('pics', { path: '/pics', isDir: true, type: '' }),
  items,
  sorting,
});

describe('fileNeighbours', () => {
  const items = [
    item('b10.png'),
    item('sub', { isDir: true, type: '' }),
    item('b2.png'),
    item('a.txt', { type: 'text' }),
  ];

  it('steps through the files in the listing order, folders left out', () => {
    const byName = folder(items, { by: 'name', asc: false });
    expect(fileNeighbours(byName, '/pics/b2.png')).toMatchObject({
      previous: { name: 'a.txt' },
      next: { name: 'b10.png' },
      position: 2,
      count: 3,
    });
  });

  it('has nothing before the first file and nothing after the last', () => {
    const byName = folder(items, { by: 'name', asc: false });
    expect(fileNeighbours(byName, '/pics/a.txt')).toMatchObject({ previous: null, position: 1 });
    expect(fileNeighbours(byName, '/pics/b10.png')).toMatchObject({ next: null, position: 3 });
  });

  it('reads a stored name sorting the way the server orders it (asc: true is Z→A, docs/api.md §7.5)', () => {
    const zToA = folder(items, { by: 'name', asc: true });
    expect(fileNeighbours(zToA, '/pics/b2.png')).toMatchObject({
      previous: { name: 'b10.png' },
      next: { name: 'a.txt' },
    });
  });

  it("follows the folder's saved sorting", () => {
    const bySizeDesc = folder(
      [item('small.png', { size: 1 }), item('big.png', { size: 100 }), item('mid.png', { size: 10 })],
      { by: 'size', asc: false },
    );
    expect(fileNeighbours(bySizeDesc, '/pics/mid.png')).toMatchObject({
      previous: { name: 'big.png' },
      next: { name: 'small.png' },
    });
  });

  it('knows no neighbours before the listing has loaded, or for a file not in it', () => {
    expect(fileNeighbours(undefined, '/pics/a.txt')).toEqual({ previous: null, next: null, position: 0, count: 0 });
    expect(fileNeighbours(folder(items), '/pics/gone.png')).toEqual({
      previous: null,
      next: null,
      position: 0,
      count: 3,
    });
  });
});
