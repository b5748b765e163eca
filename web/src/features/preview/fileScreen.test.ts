import { describe, expect, it } from 'vitest';
import type { Resource } from '../../api/resources';
import { fileScreen } from './fileScreen';

const file = (extra: Partial<Resource>): Resource => ({
  path: '/a.txt',
  name: 'a.txt',
  size: 5,
  modified: '2024-01-01T00:00:00Z',
  isDir: false,
  type: 'text',
  ...extra,
});

describe('fileScreen', () => {
  it('opens text with its content in the editor, writable with modify', () => {
    expect(fileScreen(file({ content: 'hello' }), { modify: true })).toEqual({ kind: 'editor', readOnly: false });
  });

  it('opens text read-only without modify, or when the server says textImmutable', () => {
    expect(fileScreen(file({ content: 'hello' }), { modify: false })).toEqual({ kind: 'editor', readOnly: true });
    expect(fileScreen(file({ content: 'hello', type: 'textImmutable' }), { modify: true })).toEqual({
      kind: 'editor',
      readOnly: true,
    });
  });

  it('opens an empty text file (no content field) in the editor', () => {
    expect(fileScreen(file({ size: 0 }), { modify: true })).toEqual({ kind: 'editor', readOnly: false });
  });

  it('previews text the server sent no content for (too large, or no download permission)', () => {
    expect(fileScreen(file({ size: 20 }), { modify: true })).toEqual({ kind: 'preview' });
  });

  it('previews everything else', () => {
    for (const type of ['image', 'video', 'audio', 'pdf', 'blob', 'invalid_link'] as const) {
      expect(fileScreen(file({ type, content: 'x' }), { modify: true })).toEqual({ kind: 'preview' });
    }
  });
});
