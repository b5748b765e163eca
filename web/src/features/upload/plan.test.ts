import { describe, expect, it } from 'vitest';
import { conflicts, freeName, planUpload, sourcesFromFiles, topNames, type UploadSource } from './plan';

function file(name: string, size = 3, relative = ''): File {
  const f = new File(['x'.repeat(size)], name);
  if (relative) Object.defineProperty(f, 'webkitRelativePath', { value: relative });
  return f;
}

const src = (relativePath: string, size = 1): UploadSource => ({
  relativePath,
  file: relativePath.endsWith('/') ? null : file(relativePath.split('/').pop() ?? '', size),
});

describe('sources from an input', () => {
  it('keeps the relative path of a folder upload, and the name of a plain one', () => {
    const sources = sourcesFromFiles([file('a.txt'), file('b.txt', 1, 'docs/sub/b.txt')]);
    expect(sources.map((s) => s.relativePath)).toEqual(['a.txt', 'docs/sub/b.txt']);
  });

  it('never keeps empty, . or .. segments', () => {
    expect(sourcesFromFiles([file('c', 1, '../x/./y//c')])[0]?.relativePath).toBe('x/y/c');
  });
});

describe('conflicts', () => {
  const sources = [
    src('a.txt'),
    src('docs/one.txt'),
    src('docs/two.txt'),
    { relativePath: 'empty', file: null },
  ];

  it('are found on the top-level names only', () => {
    expect(topNames(sources)).toEqual(['a.txt', 'docs', 'empty']);
    expect(conflicts(sources, new Set(['docs', 'one.txt']))).toEqual(['docs']);
    expect(conflicts(sources, new Set())).toEqual([]);
  });
});

describe('free names', () => {
  it('add (N) before the extension, as the server does', () => {
    expect(freeName('a.txt', new Set())).toBe('a.txt');
    expect(freeName('a.txt', new Set(['a.txt']))).toBe('a(1).txt');
    expect(freeName('a.txt', new Set(['a.txt', 'a(1).txt']))).toBe('a(2).txt');
    expect(freeName('x.tar.gz', new Set(['x.tar.gz']))).toBe('x.tar(1).gz');
    expect(freeName('notes', new Set(['notes']))).toBe('notes(1)');
    expect(freeName('.env', new Set(['.env']))).toBe('.env(1)');
  });
});

describe('planning an upload', () => {
  const sources = [src('a.txt', 5), src('docs/one.txt', 7), { relativePath: 'docs/empty', file: null }];

  it('targets the folder, with override off and folders ending in /', () => {
    const plan = planUpload(sources, '/in/', new Set());
    expect(plan.jobs.map((j) => [j.path, j.name, j.size, j.override])).toEqual([
      ['/in/a.txt', 'a.txt', 5, false],
      ['/in/docs/one.txt', 'docs/one.txt', 7, false],
      ['/in/docs/empty/', 'docs/empty', 0, false],
    ]);
    expect(plan.names).toEqual(['a.txt', 'docs']);
  });

  it('skips existing names', () => {
    const plan = planUpload(sources, '/', new Set(['docs']), 'skip');
    expect(plan.jobs.map((j) => j.path)).toEqual(['/a.txt']);
    expect(plan.names).toEqual(['a.txt']);
  });

  it('replaces existing names with override', () => {
    const plan = planUpload(sources, '/', new Set(['a.txt']), 'replace');
    expect(plan.jobs.map((j) => [j.path, j.override])).toEqual([
      ['/a.txt', true],
      ['/docs/one.txt', false],
      ['/docs/empty/', false],
    ]);
  });

  it('keeps both by renaming the new top-level item, never onto another new name', () => {
    const plan = planUpload([...sources, src('docs(1)')], '/', new Set(['a.txt', 'docs']), 'rename');
    expect(plan.jobs.map((j) => j.path)).toEqual([
      '/a(1).txt',
      '/docs(2)/one.txt',
      '/docs(2)/empty/',
      '/docs(1)',
    ]);
    expect(plan.names).toEqual(['a(1).txt', 'docs(2)', 'docs(1)']);
    expect(plan.jobs.every((j) => !j.override)).toBe(true);
  });
});
