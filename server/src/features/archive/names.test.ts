import { describe, expect, it } from 'vitest';
import { archiveName, commonBase, entryName, safeSegment, topLevelOnly } from './names.js';
import { formatFor } from './formats.js';

describe('entry names (S55)', () => {
  it('are relative to the base with no leading slash', () => {
    expect(entryName('/dir', '/dir/sub/y.txt')).toBe('sub/y.txt');
    expect(entryName('/', '/a b.txt')).toBe('a b.txt');
    expect(entryName('/dir', '/dir')).toBe('');
  });
  it('turn backslashes into _ and never produce . or .. segments', () => {
    expect(entryName('/', '/a\\..\\b/c')).toBe('a_.._b/c');
    expect(safeSegment('..')).toBe('_');
    expect(safeSegment('.')).toBe('_');
    expect(entryName('/', '/x/..\\')).toBe('x/.._');
    for (const seg of ['\\..', '..\\', '\\', '.\\.']) {
      const name = entryName('/', '/' + seg);
      for (const part of name.split(/[/\\]/)) expect(['.', '..']).not.toContain(part);
    }
    expect(entryName('/', '/\\..')).toBe('_..');
  });
  it('never start with a drive prefix', () => {
    expect(entryName('/', '/C:/x')).toBe('C_/x');
    expect(entryName('/', '/c:x')).toBe('c_x');
  });
});

describe('commonBase', () => {
  it('is the item itself for one item', () => {
    expect(commonBase(['/w/a.txt'])).toBe('/w/a.txt');
  });
  it('is the deepest shared folder by whole segments', () => {
    expect(commonBase(['/w/a b.txt', '/w/dir'])).toBe('/w');
    expect(commonBase(['/photos/a', '/photos-old/b'])).toBe('/');
    expect(commonBase(['/a/b', '/a/b/c'])).toBe('/a');
  });
});

describe('topLevelOnly', () => {
  it('drops duplicates and items below another selected item', () => {
    expect(topLevelOnly(['/a/x', '/a', '/b', '/b', '/ab'])).toEqual(['/a', '/b', '/ab']);
  });
});

describe('archiveName', () => {
  it('follows docs/api.md §8.2', () => {
    expect(
      archiveName({ base: '/dir', requested: '/dir', scopeName: 'root', items: 1, extension: '.zip' }),
    ).toBe('dir.zip');
    expect(archiveName({ base: '/w', requested: '/', scopeName: 'root', items: 2, extension: '.zip' })).toBe(
      '_w.zip',
    );
    expect(
      archiveName({ base: '/', requested: '/', scopeName: 'files', items: 2, extension: '.tar.xz' }),
    ).toBe('_files.tar.xz');
    expect(
      archiveName({ base: '/', requested: '/arch', scopeName: 'files', items: 1, extension: '.tar.xz' }),
    ).toBe('arch.tar.xz');
  });
});

describe('formatFor (S57)', () => {
  it('knows the nine names and defaults to zip', () => {
    for (const a of ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'])
      expect(formatFor(a)).toBeDefined();
    expect(formatFor(undefined)?.extension).toBe('.zip');
    expect(formatFor('')?.extension).toBe('.zip');
    expect(formatFor('true')?.extension).toBe('.zip');
  });
  it('refuses anything else', () => {
    for (const a of ['rar', 'ZIP', 'toString', '__proto__', 'tar.gz']) expect(formatFor(a)).toBeUndefined();
  });
});
