import { BadRequest } from '../http/errors.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** String.prototype.isWellFormed (ES2024, not in this project's TypeScript lib). */
export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * Refuses JSON strings holding lone UTF-16 surrogates ("\ud800"): they cannot be stored as UTF-8
 * text and would come back altered (SQLite and PostgreSQL replace them). Walks the whole value.
 */
export function assertWellFormedText(value: unknown, depth = 0): void {
  if (depth > 64) throw new BadRequest('JSON nested too deeply');
  if (typeof value === 'string') {
    if (!isWellFormedText(value)) throw new BadRequest('invalid Unicode text');
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) assertWellFormedText(v, depth + 1);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!isWellFormedText(k)) throw new BadRequest('invalid Unicode text');
      assertWellFormedText(v, depth + 1);
    }
  }
}
