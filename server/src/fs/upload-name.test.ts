import { describe, expect, it } from 'vitest';
import { cleanUploadName, FALLBACK_NAME, suffixedName } from './upload-name.js';

describe('cleanUploadName (docs/api.md §23.3)', () => {
  it('keeps the last path segment only, whichever separator', () => {
    expect(cleanUploadName('../../etc/passwd')).toBe('passwd');
    expect(cleanUploadName('a/b/c.txt')).toBe('c.txt');
    expect(cleanUploadName('C:\\Users\\x\\evil.exe')).toBe('evil.exe');
    expect(cleanUploadName('/abs/path/')).toBe(FALLBACK_NAME);
    expect(cleanUploadName('..\\..\\x')).toBe('x');
  });

  it('never gives ".", "..", an empty or a hidden name', () => {
    for (const n of ['', '.', '..', '...', '   ', '/', '\\', '..//..']) expect(cleanUploadName(n), n).toBe(FALLBACK_NAME);
    expect(cleanUploadName('.htaccess')).toBe('htaccess');
    expect(cleanUploadName('..hidden.txt')).toBe('hidden.txt');
    expect(cleanUploadName('name. . ')).toBe('name');
  });

  it('removes control and invisible characters', () => {
    expect(cleanUploadName('a\u0000b\nc\td\u007f\u0085.txt')).toBe('abcd.txt');
    expect(cleanUploadName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(cleanUploadName('\ufeffbom.txt')).toBe('bom.txt');
  });

  it('removes dots and spaces at the ends together, and every format character', () => {
    expect(cleanUploadName('. .htaccess')).toBe('htaccess');
    expect(cleanUploadName('.\u00a0. .profile')).toBe('profile');
    expect(cleanUploadName('\u200b.bashrc')).toBe('bashrc');
    expect(cleanUploadName('a\u061cb\u200cc\u2060d\u00ade\u2028f\u{E0041}.txt')).toBe('abcdef.txt');
    expect(cleanUploadName('name . .')).toBe('name');
  });

  it('renames device names and Coffer\'s own temporary names', () => {
    expect(cleanUploadName('CON')).toBe('_CON');
    expect(cleanUploadName('nul.txt')).toBe('_nul.txt');
    expect(cleanUploadName('com1')).toBe('_com1');
    expect(cleanUploadName('CON .txt')).toBe('_CON .txt');
    expect(cleanUploadName('console.txt')).toBe('console.txt');
    expect(cleanUploadName('.coffer-tmp-abc')).toBe('coffer-tmp-abc');
    expect(cleanUploadName('x/.coffer-tmp-abc')).toBe('coffer-tmp-abc');
  });

  it('cuts long names by bytes, keeping the extension and whole characters', () => {
    const long = 'é'.repeat(300) + '.pdf';
    const out = cleanUploadName(long);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(243);
    expect(out.endsWith('.pdf')).toBe(true);
    expect(out).not.toContain('\ufffd');
  });

  it('normalises to NFC', () => {
    expect(cleanUploadName('e\u0301.txt')).toBe('\u00e9.txt');
  });
});

describe('suffixedName', () => {
  it('puts the number before the extension', () => {
    expect(suffixedName('report.pdf', 1)).toBe('report (1).pdf');
    expect(suffixedName('archive.tar.gz', 2)).toBe('archive.tar (2).gz');
    expect(suffixedName('README', 3)).toBe('README (3)');
  });
});
