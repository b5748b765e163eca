declare module 'lzma-native' {
  import type { Transform } from 'node:stream';
  export function createCompressor(options?: {
    preset?: number;
    threads?: number;
    check?: number;
  }): Transform;
}
