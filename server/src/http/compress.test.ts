import { describe, expect, it } from 'vitest';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { chooseEncoding, compressor } from './compress.js';

describe('chooseEncoding', () => {
  it('prefers brotli, then gzip, and sends plain bytes when nothing is accepted', () => {
    expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(chooseEncoding('gzip, deflate')).toBe('gzip');
    expect(chooseEncoding('x-gzip')).toBe('gzip');
    expect(chooseEncoding('deflate')).toBeNull();
    expect(chooseEncoding('')).toBeNull();
    expect(chooseEncoding(undefined)).toBeNull();
    expect(chooseEncoding('identity')).toBeNull();
  });
  it('honours q-values, q=0 refuses, and * stands for the codings not named', () => {
    expect(chooseEncoding('br;q=0, gzip')).toBe('gzip');
    expect(chooseEncoding('br;q=0.5, gzip;q=1')).toBe('gzip');
    expect(chooseEncoding('BR ; Q=0.9, gzip;q=0.1')).toBe('br');
    expect(chooseEncoding('*')).toBe('br');
    expect(chooseEncoding('*;q=0')).toBeNull();
    expect(chooseEncoding('br;q=0, *')).toBe('gzip');
    expect(chooseEncoding('gzip;q=0, br;q=0')).toBeNull();
    expect(chooseEncoding(['gzip', 'br'])).toBe('br');
  });
});

describe('compress', () => {
  it('round-trips through both codings', async () => {
    const body = Buffer.from(JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ name: `é-${i}` })) }));
    const squeeze = (enc: 'br' | 'gzip') => buffer(Readable.from([body.subarray(0, 1000), body.subarray(1000)]).pipe(compressor(enc)));
    expect(brotliDecompressSync(await squeeze('br')).equals(body)).toBe(true);
    expect(gunzipSync(await squeeze('gzip')).equals(body)).toBe(true);
  });
});
