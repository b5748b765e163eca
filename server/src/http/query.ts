/** Query parameters File Browser's API reads the same way on several routes. */

/**
 * A flag is on only when it is exactly `true`; anything else, or nothing, is off
 * (docs/api.md §7.7, docs/api.md §7.9, docs/api.md §13.2).
 */
export function queryFlag(value: unknown): boolean {
  return value === 'true';
}

/** `override=true`: replace what is at the target (uploads, copy and move). */
export function overrideFlag(query: unknown): boolean {
  return queryFlag((query as Record<string, unknown> | null | undefined)?.override);
}
