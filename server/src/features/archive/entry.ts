/** What the container writers consume: one archive entry, its content read ahead or opened lazily. */
export interface ArchiveEntry {
  /** Safe entry name (names.ts): relative, `/`-separated, no trailing `/`. */
  name: string;
  isDir: boolean;
  /** Permission bits (mode & 0o7777). */
  mode: number;
  mtime: Date;
  /** Bytes of a file (0 for folders). */
  size: number;
  /** A small file's content, read ahead. */
  data?: Buffer;
  /** A large file's content: exactly `size` bytes, or the iterator throws. */
  stream?: AsyncGenerator<Buffer>;
}
