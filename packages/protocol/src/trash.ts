/**
 * The trash (docs/api.md §22): items deleted with the trash on, per scope, until restored, deleted
 * for good or expired. TypeBox schemas plus their static types.
 */
import { Type, type Static } from 'typebox';

export const TrashItem = Type.Object({
  /** 32 hex digits. */
  id: Type.String(),
  name: Type.String(),
  /** Where it was, inside its scope (the folder it goes back to is this path's parent). */
  path: Type.String(),
  /** Its scope below the server root ("/" or "/users/bob"); an admin's list mixes scopes. */
  scope: Type.String(),
  isDir: Type.Boolean(),
  /** Bytes; -1 while a folder is still being measured. */
  size: Type.Integer({ minimum: -1 }),
  /** RFC 3339. */
  deletedAt: Type.String(),
  /** Username of who deleted it; "" when that user is gone. */
  deletedBy: Type.String(),
  /** RFC 3339: when the sweeper removes it. */
  expiresAt: Type.String(),
});
export type TrashItem = Static<typeof TrashItem>;

export const TrashList = Type.Object({
  /** Days an item stays (0: the trash is off and deletes are final). */
  retentionDays: Type.Integer({ minimum: 0 }),
  /** Newest first. */
  items: Type.Array(TrashItem),
});
export type TrashList = Static<typeof TrashList>;

export const TrashRestoreRequest = Type.Object({
  /** "rename" (default): a taken name becomes name(1).ext; "fail": 409, the client asks. */
  conflict: Type.Optional(Type.Union([Type.Literal('rename'), Type.Literal('fail')])),
});
export type TrashRestoreRequest = Static<typeof TrashRestoreRequest>;

export const TrashRestored = Type.Object({ path: Type.String({ description: 'where the item is now, inside its scope' }) });
export type TrashRestored = Static<typeof TrashRestored>;

export const TrashEmptied = Type.Object({ removed: Type.Integer({ minimum: 0 }) });
export type TrashEmptied = Static<typeof TrashEmptied>;
