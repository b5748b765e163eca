import { describe, expect, it } from 'vitest';
import { withExtension } from './CompressPrompt';
import { archiveStem } from './useCompressAction';

describe('the compress prompt', () => {
  it('names the archive after the one selected item, else after the folder', () => {
    expect(archiveStem('/docs/', [{ name: 'report.pdf', isDir: false }])).toBe('report');
    expect(archiveStem('/docs/', [{ name: 'photos', isDir: true }])).toBe('photos');
    expect(archiveStem('/docs/', [{ name: '.env', isDir: false }])).toBe('.env');
    expect(archiveStem('/docs/', [{ name: 'a', isDir: false }, { name: 'b', isDir: true }])).toBe('docs');
    expect(archiveStem('/', [{ name: 'a', isDir: false }, { name: 'b', isDir: true }])).toBe('archive');
  });

  it('swaps the extension when the format changes, and adds it to a name without it', () => {
    expect(withExtension('a.zip', 'zip', 'targz')).toBe('a.tar.gz');
    expect(withExtension('a.tar.gz', 'targz', 'tar')).toBe('a.tar');
    expect(withExtension('mine', 'zip', 'tarzst')).toBe('mine.tar.zst');
  });
});
