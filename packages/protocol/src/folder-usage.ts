/**
 * The disk-usage picture (docs/api.md §24.2): a folder's visible children with their sizes from the
 * file index, biggest first, the smallest grouped beyond a bound. TypeBox schemas plus their types.
 */
import { Type, type Static } from 'typebox';

export const FolderUsageItem = Type.Object({
  name: Type.String(),
  isDir: Type.Boolean(),
  isSymlink: Type.Boolean(),
  /** The listing's type (docs/api.md §7.4): "" for a folder, image, video, audio, text, pdf, blob… */
  type: Type.String(),
  /** Bytes: a folder's recursive size from the index, a file's size (a link: the link itself). */
  size: Type.Number({ minimum: 0 }),
});
export type FolderUsageItem = Static<typeof FolderUsageItem>;

export const FolderUsage = Type.Object({
  /** The index's state: only "ready" answers carry items; "building" and "disabled" carry none. */
  status: Type.Union([Type.Literal('disabled'), Type.Literal('building'), Type.Literal('ready')]),
  /** Build progress 0–100 while "building"; 100 when ready; 0 when disabled. */
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  /** The folder, as the caller sees it ("/" = the scope root). */
  path: Type.String(),
  /** Bytes of everything listed here: the items and `other`. */
  size: Type.Number({ minimum: 0 }),
  /** The biggest children, biggest first (equal sizes by name); at most 200. */
  items: Type.Array(FolderUsageItem),
  /** The children beyond the bound, as one group. */
  other: Type.Object({ count: Type.Integer({ minimum: 0 }), size: Type.Number({ minimum: 0 }) }),
});
export type FolderUsage = Static<typeof FolderUsage>;
