import { describe, expect, it } from 'vitest';
import { resolutionOf, summarize, typeKey } from './info';

describe('summarize', () => {
  it('counts folders and files and adds up the file sizes only', () => {
    expect(
      summarize([
        { isDir: true, size: 4096 },
        { isDir: false, size: 10 },
        { isDir: false, size: 1500 },
      ]),
    ).toEqual({ count: 3, dirs: 1, files: 2, bytes: 1510 });
  });

  it('is all zeros for nothing', () => {
    expect(summarize([])).toEqual({ count: 0, dirs: 0, files: 0, bytes: 0 });
  });
});

describe('typeKey', () => {
  it('names folders, known types, and anything else as binary', () => {
    expect(typeKey({ isDir: true, type: '' })).toBe('folder');
    expect(typeKey({ isDir: false, type: 'image' })).toBe('image');
    expect(typeKey({ isDir: false, type: 'textImmutable' })).toBe('textImmutable');
    expect(typeKey({ isDir: false, type: 'invalid_link' })).toBe('invalid_link');
    expect(typeKey({ isDir: false, type: 'something' })).toBe('blob');
  });
});

describe('resolutionOf', () => {
  it('takes a width and height the server sent', () => {
    expect(resolutionOf({ resolution: { width: 640, height: 480 } })).toEqual({ width: 640, height: 480 });
  });

  it.each([undefined, null, {}, { width: 0, height: 4 }, { width: '1', height: 2 }])(
    'ignores %j',
    (resolution) => {
      expect(resolutionOf({ resolution })).toBeNull();
    },
  );
});
