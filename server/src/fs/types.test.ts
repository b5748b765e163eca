import { describe, expect, it } from 'vitest';
import { detectType, extensionOf, isBinary, MAX_TEXT_SIZE, sniffMime } from './types.js';

const base = { special: false, sniff: true, canModify: true };

describe('type detection (docs/api.md §7.4)', () => {
  it('takes the extension, last dot only; a dotfile is its own extension', () => {
    expect(extensionOf('a.tar.gz')).toBe('.gz');
    expect(extensionOf('.bashrc')).toBe('.bashrc');
    expect(extensionOf('README')).toBe('');
  });
  it('maps File Browser extras and families', () => {
    const t = (name: string) => detectType({ ...base, name, size: 10 });
    expect(t('a.mkv')).toBe('video');
    expect(t('a.m4v')).toBe('video');
    expect(t('a.opus')).toBe('video');
    expect(t('a.flac')).toBe('audio');
    expect(t('a.webp')).toBe('image');
    expect(t('a.PDF')).toBe('pdf');
    expect(t('a.md')).toBe('text');
    expect(t('a.conf')).toBe('text');
  });
  it('without a header (listings) small unknown files are text, large ones blob, pipes blob', () => {
    expect(detectType({ ...base, name: 'x.bin', size: 5 })).toBe('text');
    expect(detectType({ ...base, name: 'x.txt', size: MAX_TEXT_SIZE + 1 })).toBe('blob');
    expect(detectType({ ...base, name: 'x.txt', size: MAX_TEXT_SIZE })).toBe('text');
    expect(detectType({ ...base, name: 'pipe', size: 0, special: true })).toBe('blob');
  });
  it('with a header: sniffs only when there is no extension type and sniffing is on', () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(detectType({ ...base, name: 'noext', size: png.length, head: png })).toBe('image');
    expect(detectType({ ...base, name: 'noext', size: png.length, head: png, sniff: false })).toBe('blob');
    expect(detectType({ ...base, name: 'x.txt', size: png.length, head: png })).toBe('text');
    expect(detectType({ ...base, name: 'x', size: 4, head: Buffer.from('%PDF-1.4') })).toBe('pdf');
    expect(detectType({ ...base, name: 'x', size: 3, head: Buffer.from('abc'), canModify: false })).toBe('textImmutable');
  });
  it('sniffs common signatures', () => {
    expect(sniffMime(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(sniffMime(Buffer.from('\x1a\x45\xdf\xa3', 'latin1'))).toBe('video/webm');
    expect(sniffMime(Buffer.from('000000186674797069736f6d0000000069736f6d6d703432', 'hex'))).toBe('video/mp4');
    expect(sniffMime(Buffer.from('hello'))).toBe('');
  });
  it('treats control bytes ≤ 8 and invalid UTF-8 as binary, a cut-off character at the window end not', () => {
    expect(isBinary(Buffer.alloc(0), false)).toBe(false);
    expect(isBinary(Buffer.from('hello\n\t'), false)).toBe(false);
    expect(isBinary(Buffer.from([0x61, 0x08]), false)).toBe(true);
    expect(isBinary(Buffer.from([0x61, 0xff, 0x61]), false)).toBe(true);
    const cut = Buffer.from('aé').subarray(0, 2); // "a" + first byte of "é"
    expect(isBinary(cut, true)).toBe(false);
    expect(isBinary(cut, false)).toBe(true);
  });
});
