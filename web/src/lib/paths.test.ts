import { describe, expect, it } from 'vitest';
import { encodePath, filesRoute, folderOf, virtualPathOf } from './paths';

describe('paths', () => {
  it('encodes each segment and keeps slashes', () => {
    expect(filesRoute('/a b/c#d.txt')).toBe('/files/a%20b/c%23d.txt');
    expect(filesRoute('docs/')).toBe('/files/docs/');
  });
  it('reads the splat back as a virtual path', () => {
    expect(virtualPathOf(undefined)).toBe('/');
    expect(virtualPathOf('docs/a/')).toBe('/docs/a/');
  });
  it('finds the folder of a file', () => {
    expect(folderOf('/docs/a.txt')).toBe('/docs/');
    expect(folderOf('/docs/')).toBe('/docs/');
    expect(folderOf('/a.txt')).toBe('/');
  });
});

describe('encodePath', () => {
  it('encodes every segment with encodeURIComponent', () => {
    expect(encodePath('/a b/c%d/é?')).toBe('/a%20b/c%25d/%C3%A9%3F');
  });
});
