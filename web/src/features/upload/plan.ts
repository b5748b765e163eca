/**
 * From chosen or dropped files to upload jobs (docs/client.md §3 "Upload item", §4 "Paste", §5): folders are
 * recognised by the relative path of their files, names already in the target folder decide the
 * replace prompt, and the answer decides what is sent with which override.
 */

/** A file or an empty folder as chosen or dropped. */
export interface UploadSource {
  /** Path relative to the target folder, `/`-separated, no leading `/` (`photos/2024/a.jpg`). */
  relativePath: string;
  /** null for a folder that has nothing in it (created on its own). */
  file: File | null;
}

/** One request of the upload queue (docs/client.md §3 "Upload queue item"). */
export interface UploadJob {
  /** Target virtual path; a folder's ends in `/`. */
  path: string;
  /** What the panel shows: the path below the target folder. */
  name: string;
  file: File | null;
  size: number;
  override: boolean;
}

/** What to do with names that already exist in the target folder. */
export type ConflictChoice = 'replace' | 'skip' | 'rename';

/** Files from an `<input type=file>` (with `webkitdirectory`, each carries its relative path). */
export function sourcesFromFiles(files: Iterable<File>): UploadSource[] {
  return [...files].map((file) => ({ relativePath: cleanPath(file.webkitRelativePath || file.name), file }));
}

function cleanPath(p: string): string {
  return p
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.' && s !== '..')
    .join('/');
}

function topOf(relativePath: string): string {
  const slash = relativePath.indexOf('/');
  return slash < 0 ? relativePath : relativePath.slice(0, slash);
}

/** The distinct first segments: what appears in the target folder. */
export function topNames(sources: readonly UploadSource[]): string[] {
  return [...new Set(sources.map((s) => topOf(s.relativePath)).filter(Boolean))];
}

/** Top-level names that already exist in the target folder. */
export function conflicts(sources: readonly UploadSource[], existing: ReadonlySet<string>): string[] {
  return topNames(sources).filter((n) => existing.has(n));
}

/** The first free `base(N)ext` (N = 1, 2, …), the server's own scheme for copies (docs/api.md §7.9). */
export function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const [base, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = `${base}(${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export interface Plan {
  jobs: UploadJob[];
  /** The top-level names that will appear in the target folder (to select after the upload). */
  names: string[];
}

/**
 * The jobs for `sources` into `folder` (ends in `/`). Without a choice nothing conflicts (or the
 * caller checked); `skip` leaves existing names out, `rename` gives them a free name, `replace`
 * sends them with override.
 */
export function planUpload(
  sources: readonly UploadSource[],
  folder: string,
  existing: ReadonlySet<string>,
  choice: ConflictChoice = 'skip',
): Plan {
  const renamed = new Map<string, string>();
  const taken = new Set([...existing, ...topNames(sources)]);
  for (const name of conflicts(sources, existing)) {
    if (choice !== 'rename') continue;
    const fresh = freeName(name, taken);
    taken.add(fresh);
    renamed.set(name, fresh);
  }
  const jobs: UploadJob[] = [];
  for (const source of sources) {
    if (!source.relativePath) continue;
    const top = topOf(source.relativePath);
    const clash = existing.has(top);
    if (clash && choice === 'skip') continue;
    const relative = (renamed.get(top) ?? top) + source.relativePath.slice(top.length);
    jobs.push({
      path: `${folder}${relative}${source.file ? '' : '/'}`,
      name: relative,
      file: source.file,
      size: source.file?.size ?? 0,
      override: clash && choice === 'replace',
    });
  }
  const names = [...new Set(jobs.map((j) => topOf(j.name)))];
  return { jobs, names };
}
