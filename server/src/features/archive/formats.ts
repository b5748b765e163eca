/** The archive formats of docs/api.md §8.2 and their names (S57: any other `algo` is a 400). */

export type Codec = 'none' | 'gzip' | 'bzip2' | 'xz' | 'lz4' | 'snappy' | 'brotli' | 'zstd';

export interface ArchiveFormat {
  container: 'zip' | 'tar';
  codec: Codec;
  extension: string;
}

const FORMATS: Record<string, ArchiveFormat> = {
  zip: { container: 'zip', codec: 'none', extension: '.zip' },
  tar: { container: 'tar', codec: 'none', extension: '.tar' },
  targz: { container: 'tar', codec: 'gzip', extension: '.tar.gz' },
  tarbz2: { container: 'tar', codec: 'bzip2', extension: '.tar.bz2' },
  tarxz: { container: 'tar', codec: 'xz', extension: '.tar.xz' },
  tarlz4: { container: 'tar', codec: 'lz4', extension: '.tar.lz4' },
  tarsz: { container: 'tar', codec: 'snappy', extension: '.tar.sz' },
  tarbr: { container: 'tar', codec: 'brotli', extension: '.tar.br' },
  tarzst: { container: 'tar', codec: 'zstd', extension: '.tar.zst' },
};

/** Missing, empty, `zip` or `true` → zip; an unknown name → undefined (the route answers 400). */
export function formatFor(algo: string | undefined): ArchiveFormat | undefined {
  if (algo === undefined || algo === '' || algo === 'true') return FORMATS.zip;
  return Object.hasOwn(FORMATS, algo) ? FORMATS[algo] : undefined;
}

/** Content type of the archive answer (File Browser's sniffing gives these three). */
export function contentTypeOf(f: ArchiveFormat): string {
  if (f.container === 'zip') return 'application/zip';
  if (f.codec === 'gzip') return 'application/x-gzip';
  return 'application/octet-stream';
}
