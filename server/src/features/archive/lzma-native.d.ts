declare module 'lzma-native' {
  import type { Transform } from 'node:stream';
  export function createCompressor(options?: {
    preset?: number;
    threads?: number;
    check?: number;
  }): Transform;
}
declare module 'lzma-native' {
  import type { Transform } from 'node:stream';
  export function createDecompressor(options?: { memlimit?: number }): Transform;
  /** Tests: the encoder of the old .lzma format. */
  export function createStream(kind: 'aloneEncoder', options?: { preset?: number }): Transform;
}
