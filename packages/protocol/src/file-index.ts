/**
 * The file index (docs/api.md §24): its progress, as GET /api/index answers it to admins.
 * TypeBox schemas plus their static types.
 */
import { Type, type Static } from 'typebox';

export const IndexProgress = Type.Object({
  /** "disabled" (--disable-index), "building" (search walks meanwhile) or "ready". */
  status: Type.Union([Type.Literal('disabled'), Type.Literal('building'), Type.Literal('ready')]),
  /** Entries in the index so far. */
  entries: Type.Integer({ minimum: 0 }),
  /** Build progress, 0–100 (an estimate: folders read of those found so far); 100 when ready. */
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  /** RFC 3339 time of the last finished build or reconciliation; "" before the first. */
  updatedAt: Type.String(),
  /**
   * Which process answered when several share the database: "maintainer" (holds the lease: builds,
   * watches, reconciles) or "reader" (reads the index the maintainer keeps). Absent when disabled.
   */
  role: Type.Optional(Type.Union([Type.Literal('maintainer'), Type.Literal('reader')])),
});
export type IndexProgress = Static<typeof IndexProgress>;
