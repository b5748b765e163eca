import { describe, expect, it } from 'vitest';
import { isExtractable } from './useExtractAction';

describe('Extract here is offered', () => {
  it('for files named like an archive the server reads, not for folders or other names', () => {
    for (const name of ['a.zip', 'A.ZIP', 'a.tar', 'a.tar.gz', 'a.tgz', 'a.tar.bz2', 'a.tbz2', 'a.tar.xz', 'a.txz', 'a.tar.zst', 'a.tar.lz4', 'a.tar.br', 'a.tar.sz']) {
      expect(isExtractable({ name, isDir: false }), name).toBe(true);
    }
    for (const name of ['a.7z', 'a.rar', 'a.gz', 'zip', 'a.zip.txt']) {
      expect(isExtractable({ name, isDir: false }), name).toBe(false);
    }
    expect(isExtractable({ name: 'a.zip', isDir: true })).toBe(false);
  });
});
