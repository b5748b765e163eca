import { describe, expect, it } from 'vitest';
import type { FolderUsageItem } from '@coffer/protocol';
import { createFolderUsageService, grouped } from './service.js';
import type { FileService } from '../../fs/service.js';
import type { UserRecord } from '../users/repository.js';

const item = (name: string, size: number): FolderUsageItem => ({ name, size, isDir: false, isSymlink: false, type: 'blob' });

describe('grouped', () => {
  it('keeps the biggest, names break ties, and sums the rest into other', () => {
    const out = grouped([item('b', 5), item('a', 5), item('c', 1), item('d', 9), item('e', 2)], 3);
    expect(out.items.map((i) => i.name)).toEqual(['d', 'a', 'b']);
    expect(out.other).toEqual({ count: 2, size: 3 });
    expect(out.size).toBe(22);
  });

  it('has no other group at or under the bound', () => {
    expect(grouped([item('a', 1)], 1).other).toEqual({ count: 0, size: 0 });
    expect(grouped([], 5)).toEqual({ items: [], other: { count: 0, size: 0 }, size: 0 });
  });
});

describe('the picture without a ready index', () => {
  const folder = { virtual: '/docs', real: '/srv/docs', stat: { isDirectory: () => true } };
  const files = { resolve: async () => folder } as unknown as FileService;
  const user = {} as UserRecord;

  it('says the index is building, with its progress, and sends no sizes', async () => {
    const index = {
      status: 'building' as const,
      progress: () => ({ status: 'building' as const, entries: 10, percent: 40, updatedAt: 0 }),
      folderSizes: async () => {
        throw new Error('not asked while building');
      },
    };
    const out = await createFolderUsageService({ files, index }).of(user, '/docs', []);
    expect(out).toEqual({ status: 'building', percent: 40, path: '/docs', size: 0, items: [], other: { count: 0, size: 0 } });
  });

  it('does not invent sizes for a folder the ready index cannot answer yet', async () => {
    const index = {
      status: 'ready' as const,
      progress: () => ({ status: 'ready' as const, entries: 10, percent: 100, updatedAt: 0 }),
      folderSizes: async () => null,
    };
    const out = await createFolderUsageService({ files, index }).of(user, '/docs', []);
    expect(out.status).toBe('building');
    expect(out.items).toEqual([]);
  });
});
