import { describe, expect, it } from 'vitest';
import { addEntry, emptyTree, sortedChildren } from './archiveTree';

const e = (name: string, isDir = false, size = 1) => ({ name, isDir, size, modified: '2026-01-01T00:00:00.000Z' });

describe('the tree of an archive', () => {
  it('nests entries, makes up folders the archive does not list, keeps the first of a name', () => {
    const root = emptyTree();
    for (const x of [e('b/c/d.txt'), e('a.txt', false, 5), e('b/', true, 0), e('a.txt', false, 9)]) addEntry(root, x);
    expect(sortedChildren(root).map((n) => [n.name, n.isDir, n.entry])).toEqual([['b', true, 'b/'], ['a.txt', false, 'a.txt']]);
    expect(root.children.find((n) => n.name === 'a.txt')?.size).toBe(5);
    const c = root.children.find((n) => n.name === 'b')!.children[0]!;
    expect([c.name, c.isDir, c.entry]).toEqual(['c', true, '']);
    expect(c.children[0]).toMatchObject({ name: 'd.txt', entry: 'b/c/d.txt', isDir: false });
  });

  it('keeps hostile names as plain data: the download asks for the name as the archive holds it', () => {
    const root = emptyTree();
    addEntry(root, e('../evil.txt'));
    addEntry(root, e('/etc/passwd'));
    addEntry(root, e('<img src=x onerror=alert(1)>'));
    const up = root.children.find((n) => n.name === '..')!;
    expect(up.children[0]).toMatchObject({ name: 'evil.txt', entry: '../evil.txt' });
    expect(root.children.find((n) => n.name === 'etc')!.children[0]!.entry).toBe('/etc/passwd');
    expect(root.children.find((n) => n.name.startsWith('<img'))!.entry).toBe('<img src=x onerror=alert(1)>');
  });
});
