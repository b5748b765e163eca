/**
 * The disk-usage picture's pure logic: the colour group of an entry, the treemap's rectangles
 * (d3-hierarchy's squarified treemap) and each entry's share of the folder.
 */
import { hierarchy, treemap, treemapSquarify } from 'd3-hierarchy';
import type { FolderUsage, FolderUsageItem } from '../../api/sizes';
import { folderPath } from '../../lib/paths';

/** The legend's groups, in the legend's order. */
export const KINDS = ['folder', 'image', 'video', 'audio', 'document', 'archive', 'other'] as const;
export type Kind = (typeof KINDS)[number];

const ARCHIVES = new Set([
  '7z', 'apk', 'bz2', 'cab', 'deb', 'dmg', 'gz', 'iso', 'jar', 'lz', 'lz4', 'lzma', 'rar', 'rpm',
  'sz', 'tar', 'tbz', 'tbz2', 'tgz', 'txz', 'tzst', 'xz', 'z', 'zip', 'zst',
]);
/** Documents, and text a person reads or writes (listings call any small file "text", docs/api.md §7.4). */
const DOCUMENTS = new Set([
  'c', 'cfg', 'conf', 'cpp', 'css', 'csv', 'doc', 'docx', 'epub', 'go', 'h', 'htm', 'html', 'ini',
  'java', 'js', 'json', 'key', 'log', 'md', 'numbers', 'odp', 'ods', 'odt', 'pages', 'pdf', 'ppt',
  'pptx', 'py', 'rs', 'rst', 'rtf', 'sh', 'sql', 'srt', 'tex', 'toml', 'ts', 'tsv', 'txt', 'vtt',
  'xls', 'xlsx', 'xml', 'yaml', 'yml',
]);

/** The extension after the last dot, lower-cased ("" when none, or a leading dot only). */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * The colour group of an entry: the listing's media types first (docs/api.md §7.4), then the
 * extension (the listing types any small file as text, so text is judged by its extension).
 */
export function kindOf(item: Pick<FolderUsageItem, 'name' | 'isDir' | 'type'>): Kind {
  if (item.isDir) return 'folder';
  if (item.type === 'image' || item.type === 'video' || item.type === 'audio') return item.type;
  const ext = extensionOf(item.name);
  if (ARCHIVES.has(ext)) return 'archive';
  if (item.type === 'pdf' || DOCUMENTS.has(ext)) return 'document';
  return 'other';
}

/** One rectangle of the map: an item, or the group of the smaller ones (`item` null). */
export interface Tile {
  key: string;
  item: FolderUsageItem | null;
  size: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

type Leaf = { key: string; item: FolderUsageItem | null; size: number };

/**
 * The squarified treemap of the items and the "other" group in a `width` × `height` box, with
 * `gap` pixels between tiles. Empty entries have no area and no tile (the list still shows them).
 */
export function layoutTiles(usage: Pick<FolderUsage, 'items' | 'other'>, width: number, height: number, gap = 2): Tile[] {
  const leaves: Leaf[] = usage.items.filter((i) => i.size > 0).map((i) => ({ key: `item:${i.name}`, item: i, size: i.size }));
  if (usage.other.size > 0) leaves.push({ key: 'other', item: null, size: usage.other.size });
  if (leaves.length === 0 || width <= 0 || height <= 0) return [];
  const root = hierarchy<{ children?: Leaf[] } | Leaf>({ children: leaves }, (d) => ('children' in d ? d.children : undefined))
    .sum((d) => ('size' in d ? d.size : 0))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  const laid = treemap<{ children?: Leaf[] } | Leaf>().tile(treemapSquarify).size([width, height]).paddingInner(gap).round(true)(root);
  return laid.leaves().map((n) => {
    const d = n.data as Leaf;
    return { key: d.key, item: d.item, size: d.size, x: n.x0, y: n.y0, width: Math.max(0, n.x1 - n.x0), height: Math.max(0, n.y1 - n.y0) };
  });
}

/** `part` of `total` in percent (0 when the total is 0). */
export function shareOf(part: number, total: number): number {
  return total > 0 ? (100 * part) / total : 0;
}

/** The folder path of a child entry. */
export function childFolder(parent: string, name: string): string {
  return `${folderPath(parent)}${name}/`;
}
