import { describe, expect, it } from 'vitest';
import type { FolderUsageItem } from '../../api/sizes';
import { usageRoute } from '../../lib/paths';
import { childFolder, kindOf, layoutTiles, shareOf } from './usageMap';

const file = (name: string, size: number, type = 'blob'): FolderUsageItem => ({ name, size, type, isDir: false, isSymlink: false });
const dir = (name: string, size: number): FolderUsageItem => ({ name, size, type: '', isDir: true, isSymlink: false });

describe('kindOf', () => {
  it('sorts entries into the legend groups by type, then by extension', () => {
    expect(kindOf(dir('photos', 1))).toBe('folder');
    expect(kindOf(file('a.jpg', 1, 'image'))).toBe('image');
    expect(kindOf(file('a.mkv', 1, 'video'))).toBe('video');
    expect(kindOf(file('a.flac', 1, 'audio'))).toBe('audio');
    expect(kindOf(file('notes.txt', 1, 'text'))).toBe('document');
    expect(kindOf(file('paper.pdf', 1, 'pdf'))).toBe('document');
    expect(kindOf(file('sheet.XLSX', 1))).toBe('document');
    expect(kindOf(file('backup.tar.gz', 1))).toBe('archive');
    expect(kindOf(file('Backup.ZIP', 1))).toBe('archive');
    expect(kindOf(file('disk.img', 1, 'text'))).toBe('other');
    expect(kindOf(file('main.py', 1, 'text'))).toBe('document');
    expect(kindOf(file('.zip', 1))).toBe('other');
    expect(kindOf(file('Makefile', 1))).toBe('other');
  });
});

describe('layoutTiles', () => {
  const usage = { items: [dir('big', 600), file('mid.mp4', 300, 'video'), file('small.txt', 100, 'text'), file('zero', 0)], other: { count: 5, size: 50 } };

  it('gives each sized entry and the other group a tile whose area follows its bytes', () => {
    const tiles = layoutTiles(usage, 400, 250, 0);
    expect(tiles.map((t) => t.key)).toEqual(['item:big', 'item:mid.mp4', 'item:small.txt', 'other']);
    const area = (k: string) => {
      const t = tiles.find((x) => x.key === k)!;
      return t.width * t.height;
    };
    const total = 400 * 250;
    // Rounded to whole pixels: within 2 % of the exact share.
    expect(area('item:big') / total).toBeCloseTo(600 / 1050, 1);
    expect(Math.abs(area('item:mid.mp4') / total - 300 / 1050)).toBeLessThan(0.02);
    expect(Math.abs(area('other') / total - 50 / 1050)).toBeLessThan(0.02);
    for (const t of tiles) {
      expect(t.x).toBeGreaterThanOrEqual(0);
      expect(t.y).toBeGreaterThanOrEqual(0);
      expect(t.x + t.width).toBeLessThanOrEqual(400);
      expect(t.y + t.height).toBeLessThanOrEqual(250);
    }
    expect(tiles.find((t) => t.key === 'other')?.item).toBeNull();
  });

  it('draws nothing for an empty folder or a box without room', () => {
    expect(layoutTiles({ items: [file('z', 0)], other: { count: 0, size: 0 } }, 400, 300)).toEqual([]);
    expect(layoutTiles(usage, 0, 300)).toEqual([]);
  });
});

describe('shares and routes', () => {
  it('computes a share of the folder, 0 of nothing', () => {
    expect(shareOf(25, 100)).toBe(25);
    expect(shareOf(5, 0)).toBe(0);
  });

  it('builds /usage routes with encoded segments and one trailing slash', () => {
    expect(usageRoute('/')).toBe('/usage/');
    expect(usageRoute('/a b/c#d')).toBe('/usage/a%20b/c%23d/');
    expect(usageRoute('/docs/')).toBe('/usage/docs/');
    expect(childFolder('/docs', '100%')).toBe('/docs/100%/');
    expect(usageRoute(childFolder('/docs/', '100%'))).toBe('/usage/docs/100%25/');
  });
});
