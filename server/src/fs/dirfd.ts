/**
 * Working from opened folders instead of names (openat-style; Linux). Node has no `openat`, but
 * `/proc/self/fd/<fd>` names the very folder a descriptor holds, wherever it is now: a path
 * `/proc/self/fd/<fd>/<name>` reaches `<name>` inside that folder, and a rename of the folder or a
 * link put in place of its old name changes nothing about where it leads. Long jobs (extract,
 * compress: fs/extract.ts) open their folders once and work through them.
 */
import { constants, type Stats } from 'node:fs';
import { open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const FD_DIR = '/proc/self/fd';

/** A path reaching `names` inside the opened folder `dir` (names: single segments, checked by the caller). */
export function viaFd(dir: FileHandle, ...names: string[]): string {
  for (const n of names) if (n === '' || n === '.' || n === '..' || n.includes('/')) throw new Error('not a single name');
  return names.length ? `${FD_DIR}/${dir.fd}/${names.join('/')}` : `${FD_DIR}/${dir.fd}`;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Opens the folder `name` inside the opened folder `parent`; a link of that name is refused (ELOOP/ENOTDIR). */
export function openDirIn(parent: FileHandle, name: string): Promise<FileHandle> {
  return open(viaFd(parent, name), DIR_FLAGS);
}

/** Where the opened folder is now: its real path (the kernel's name for it). */
export function whereIs(dir: FileHandle): Promise<string> {
  return readlink(`${FD_DIR}/${dir.fd}`);
}

/**
 * Opens the folder at the real path `real`, checking that what was opened is still exactly there
 * (no component turned into a link since `real` was found) and, with `expect`, the very folder the
 * resolver saw (same device and inode). The caller closes it.
 */
export async function openDirExactly(real: string, expect?: Stats): Promise<FileHandle> {
  const dir = await open(path.resolve(real), DIR_FLAGS);
  try {
    if ((await whereIs(dir)) !== path.resolve(real)) throw new Error('the folder moved while it was being opened');
    if (expect) {
      const st = await dir.stat();
      if (st.dev !== expect.dev || st.ino !== expect.ino) throw new Error('the folder changed since it was resolved');
    }
    return dir;
  } catch (err) {
    await dir.close();
    throw err;
  }
}
