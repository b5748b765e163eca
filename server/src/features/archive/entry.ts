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
  /**
   * A small file read ahead for ZIP in a worker (fs/worker-pool.ts readBatch): the body to store,
   * deflated (`deflated`) or as it is, and the CRC-32 of the `size` original bytes.
   */
  zip?: { body: Buffer; deflated: boolean; crc: number };
  /** A large file's content: exactly `size` bytes, or the iterator throws. */
  stream?: AsyncGenerator<Buffer>;
}
