/**
 * The rows of a listing (docs/client.md §2 "File browser": two lists, folders first, then files): a heading
 * row before each group that has items, then the group's items, `columns` to a row. Rows are
 * worked out from the counts alone, so a folder of 100,000 entries costs no row objects.
 */

export interface Sections {
  /** The items before this index are folders, the others files. */
  folders: number;
  count: number;
  /** Items per row: 1 in the list view, more in the mosaic views. */
  columns: number;
}

export type Group = 'folders' | 'files';

export type Row = { kind: 'heading'; group: Group } | { kind: 'items'; start: number; end: number };

interface Span {
  group: Group;
  start: number;
  end: number;
  /** The row of the group's heading. */
  first: number;
  /** The heading and the item rows. */
  rows: number;
}

function spans({ folders, count, columns }: Sections): Span[] {
  const out: Span[] = [];
  let first = 0;
  const groups: [Group, number, number][] = [
    ['folders', 0, Math.min(folders, count)],
    ['files', Math.min(folders, count), count],
  ];
  for (const [group, start, end] of groups) {
    if (end <= start) continue;
    const rows = 1 + Math.ceil((end - start) / columns);
    out.push({ group, start, end, first, rows });
    first += rows;
  }
  return out;
}

/** How many items at the start of `items` are folders (a listing holds its folders first). */
export function countFolders(items: readonly { isDir: boolean }[]): number {
  const firstFile = items.findIndex((item) => !item.isDir);
  return firstFile === -1 ? items.length : firstFile;
}

export function rowCount(s: Sections): number {
  return spans(s).reduce((n, span) => n + span.rows, 0);
}

/** The rows that hold a heading (at most two). */
export function headingRows(s: Sections): number[] {
  return spans(s).map((span) => span.first);
}

/** What row `row` holds; null outside the listing. */
export function rowAt(s: Sections, row: number): Row | null {
  for (const span of spans(s)) {
    const r = row - span.first;
    if (r < 0 || r >= span.rows) continue;
    if (r === 0) return { kind: 'heading', group: span.group };
    const start = span.start + (r - 1) * s.columns;
    return { kind: 'items', start, end: Math.min(start + s.columns, span.end) };
  }
  return null;
}

/** The row that holds item `index`; -1 when there is no such item. */
export function rowOf(s: Sections, index: number): number {
  if (index < 0) return -1;
  for (const span of spans(s)) {
    if (index < span.end) return span.first + 1 + Math.floor((index - span.start) / s.columns);
  }
  return -1;
}

/**
 * The item one row up (`step` -1) or down (+1) from `from`, in the same column, skipping headings;
 * a shorter row takes its last item. Null when there is no such row.
 */
export function verticalNeighbour(s: Sections, from: number, step: 1 | -1): number | null {
  const row = rowOf(s, from);
  const here = rowAt(s, row);
  if (here?.kind !== 'items') return null;
  let next = rowAt(s, row + step);
  if (next?.kind === 'heading') next = rowAt(s, row + 2 * step);
  if (next?.kind !== 'items') return null;
  return Math.min(next.start + (from - here.start), next.end - 1);
}
