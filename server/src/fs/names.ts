/**
 * Names Coffer itself puts in user folders. Staging files of atomic writes start with this prefix
 * (S51): they are left out of listings and walks, and no request may address them.
 */
export const TEMP_PREFIX = '.coffer-tmp-';

export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}
