import { describe, expect, it } from 'vitest';
import { matcher, parseQuery } from './query.js';

const MIME: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.mp3': 'audio/mpeg',
  '.mkv': 'video/x-matroska',
  '.pdf': 'application/pdf',
};
const mimeOf = (name: string) => MIME[name.slice(name.lastIndexOf('.')).toLowerCase()] ?? '';
const match = (query: string, name: string) => matcher(parseQuery(query), mimeOf)(name);

describe('parseQuery', () => {
  it('defaults to case-insensitive, lower-cased, space-split terms', () => {
    expect(parseQuery('  Foo BAR ')).toEqual({ caseSensitive: false, types: [], terms: ['foo', 'bar'] });
  });
  it('reads case:sensitive anywhere and strips both case words', () => {
    expect(parseQuery('Foo case:sensitive')).toEqual({ caseSensitive: true, types: [], terms: ['Foo'] });
    expect(parseQuery('case:insensitive Foo')).toEqual({ caseSensitive: false, types: [], terms: ['foo'] });
  });
  it('collects type: words and removes them', () => {
    expect(parseQuery('type:image type:pdf cat')).toEqual({
      caseSensitive: false,
      types: ['image', 'pdf'],
      terms: ['cat'],
    });
  });
  it('keeps a quoted text as one term with its spaces', () => {
    expect(parseQuery('"My Report"')).toEqual({ caseSensitive: false, types: [], terms: ['my report'] });
    expect(parseQuery('type:pdf "a b" case:sensitive')).toEqual({
      caseSensitive: true,
      types: ['pdf'],
      terms: ['a b'],
    });
  });
  it('has no terms for an empty text', () => {
    expect(parseQuery('type:video').terms).toEqual([]);
  });
});

describe('matcher', () => {
  it('matches any term as a substring of the name', () => {
    expect(match('rep old', 'my-report.txt')).toBe(true);
    expect(match('rep old', 'OLD.txt')).toBe(true);
    expect(match('rep old', 'new.txt')).toBe(false);
  });
  it('honours case:sensitive', () => {
    expect(match('Rep case:sensitive', 'report')).toBe(false);
    expect(match('Rep case:sensitive', 'Report')).toBe(true);
  });
  it('matches media types by the extension MIME, case-insensitively', () => {
    expect(match('type:image', 'IMAGE.JPG')).toBe(true);
    expect(match('type:music', 'song.mp3')).toBe(true);
    expect(match('type:audio', 'song.mp3')).toBe(true);
    expect(match('type:video', 'film.mkv')).toBe(true);
    expect(match('type:image', 'doc.pdf')).toBe(false);
  });
  it('matches other type words as an exact, case-sensitive extension', () => {
    expect(match('type:pdf', 'a.pdf')).toBe(true);
    expect(match('type:pdf', 'a.PDF')).toBe(false);
    expect(match('type:pdf', 'pdf')).toBe(false);
  });
  it('needs at least one of several types and then a term', () => {
    expect(match('type:pdf type:image cat', 'cat.png')).toBe(true);
    expect(match('type:pdf type:image cat', 'dog.png')).toBe(false);
    expect(match('type:pdf type:image cat', 'cat.txt')).toBe(false);
  });
  it('matches a quoted term with its space only', () => {
    expect(match('"my report"', 'the my report.txt')).toBe(true);
    expect(match('"my report"', 'my-report.txt')).toBe(false);
  });
});
