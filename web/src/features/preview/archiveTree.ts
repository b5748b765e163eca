/**
 * The entries of an archive as a tree (docs/client.md §2 "Preview"): names split on "/", folders
 * the archive does not list made up from the names under them, the first entry of a name kept.
 * Names are data only: "..", "/" at the start or markup stay text in a node's `name`.
 */
export interface ArchiveNode {
  name: string;
  /** The entry's name in the archive (what a download asks for); "" for a made-up folder. */
  entry: string;
  isDir: boolean;
  size: number;
  modified: string;
  children: ArchiveNode[];
}

export function emptyTree(): ArchiveNode {
  return { name: '', entry: '', isDir: true, size: 0, modified: '', children: [] };
}

/** Adds one listed entry to `root` (mutates it; call in archive order). */
export function addEntry(root: ArchiveNode, e: { name: string; size: number; modified: string; isDir: boolean }, index = new Map<ArchiveNode, Map<string, ArchiveNode>>()): void {
  const segments = e.name.split('/').filter((s) => s !== '');
  if (segments.length === 0) return;
  let node = root;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const last = i === segments.length - 1;
    let kids = index.get(node);
    if (!kids) {
      kids = new Map(node.children.map((c) => [c.name, c]));
      index.set(node, kids);
    }
    let child = kids.get(seg);
    if (!child) {
      child = { name: seg, entry: '', isDir: !last || e.isDir, size: 0, modified: '', children: [] };
      kids.set(seg, child);
      node.children.push(child);
    }
    if (last && !child.entry) {
      child.entry = e.name;
      child.isDir = e.isDir || child.children.length > 0;
      child.size = e.size;
      child.modified = e.modified;
    }
    node = child;
  }
}

/** Folders first, then by name (a stable, locale-aware order). */
export function sortedChildren(node: ArchiveNode): ArchiveNode[] {
  return [...node.children].sort((a, b) => (a.isDir === b.isDir ? a.name.localeCompare(b.name) : a.isDir ? -1 : 1));
}
