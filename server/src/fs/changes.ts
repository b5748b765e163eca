/**
 * Coffer's own writes, announced as they happen, so that what derives from the disk (the file
 * index, features/index) follows them at once instead of waiting for the file-system watcher.
 * The write primitives of this folder — atomic writes, folder creation, copy, move, delete, the
 * trash, extraction and tus commits — call `noteWritten` with each real path they created,
 * replaced or removed; every door (web API, WebDAV, public uploads, jobs) goes through them, so
 * no door is missed. `deep` says that a folder's content changed below its first level too
 * (a copied, moved, extracted or restored folder).
 */

export type WriteListener = (real: string, deep: boolean) => void;

const listeners = new Set<WriteListener>();

/** Adds a listener; returns the function that removes it. Listeners must not throw. */
export function onWritten(listener: WriteListener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function noteWritten(real: string, deep = false): void {
  for (const l of listeners) l(real, deep);
}
