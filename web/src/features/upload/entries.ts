/**
 * Files and folders dropped from outside the browser (docs/client.md §2 "Files dropped from outside"): folders
 * are walked through the File System entries API; a folder with nothing in it becomes a source of
 * its own so that it is created too.
 */
import type { UploadSource } from './plan';

/** Whether a drag carries files from outside (not items dragged within the page). */
export function carriesFiles(dt: DataTransfer | null): boolean {
  return !!dt && [...dt.types].includes('Files');
}

/**
 * What was dropped. Entries must be taken while the drop event runs (the browser empties the data
 * afterwards), so this reads them at once and walks folders afterwards.
 */
export function sourcesFromDrop(dt: DataTransfer): Promise<UploadSource[]> {
  const roots: (FileSystemEntry | File)[] = [];
  for (const item of [...dt.items]) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    const root = entry ?? item.getAsFile();
    if (root) roots.push(root);
  }
  // A browser without items (or a drop built by a script) still has the plain file list.
  if (roots.length === 0) roots.push(...dt.files);
  return sourcesFromEntries(roots);
}

export async function sourcesFromEntries(
  roots: readonly (FileSystemEntry | File)[],
): Promise<UploadSource[]> {
  const out: UploadSource[] = [];
  for (const root of roots) {
    if (root instanceof File) out.push({ relativePath: root.name, file: root });
    else await walk(root, root.name, out);
  }
  return out;
}

async function walk(entry: FileSystemEntry, relativePath: string, out: UploadSource[]): Promise<void> {
  if (isFile(entry)) {
    out.push({ relativePath, file: await fileOf(entry) });
    return;
  }
  if (!isDirectory(entry)) return;
  const children = await readAll(entry.createReader());
  if (children.length === 0) {
    out.push({ relativePath, file: null });
    return;
  }
  for (const child of children) await walk(child, `${relativePath}/${child.name}`, out);
}

function isFile(entry: FileSystemEntry): entry is FileSystemFileEntry {
  return entry.isFile;
}

function isDirectory(entry: FileSystemEntry): entry is FileSystemDirectoryEntry {
  return entry.isDirectory;
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** readEntries answers in batches (100 in Chromium) until it answers an empty one. */
async function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}
