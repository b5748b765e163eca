import { describe, expect, it } from 'vitest';
import { checkPreconditions, ifRangeAllows, parseRange } from './range.js';

describe('parseRange', () => {
  it('answers full without a header', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'full' });
    expect(parseRange('', 10)).toEqual({ kind: 'full' });
  });
  it('parses a closed, open and suffix range', () => {
    expect(parseRange('bytes=2-4', 10)).toEqual({ kind: 'partial', ranges: [{ start: 2, end: 4 }] });
    expect(parseRange('bytes=7-', 10)).toEqual({ kind: 'partial', ranges: [{ start: 7, end: 9 }] });
    expect(parseRange('bytes=-3', 10)).toEqual({ kind: 'partial', ranges: [{ start: 7, end: 9 }] });
  });
  it('clamps an end past the file and a suffix longer than the file', () => {
    expect(parseRange('bytes=5-100', 10)).toEqual({ kind: 'partial', ranges: [{ start: 5, end: 9 }] });
    expect(parseRange('bytes=-100', 10)).toEqual({ kind: 'partial', ranges: [{ start: 0, end: 9 }] });
  });
  it('keeps several ranges in order', () => {
    expect(parseRange('bytes=0-1, 4-5,8-', 10)).toEqual({
      kind: 'partial',
      ranges: [
        { start: 0, end: 1 },
        { start: 4, end: 5 },
        { start: 8, end: 9 },
      ],
    });
  });
  it('drops ranges past the end but keeps the others', () => {
    expect(parseRange('bytes=20-30,0-0', 10)).toEqual({ kind: 'partial', ranges: [{ start: 0, end: 0 }] });
  });
  it('is unsatisfiable when every range starts past the end', () => {
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
  });
  it('is unsatisfiable for malformed headers', () => {
    for (const h of [
      'items=0-1',
      'bytes=abc',
      'bytes=5-2',
      'bytes=1-x',
      'bytes=--1',
      'bytes=-',
      'bytes=+1-2',
      'bytes=0x1-2',
    ]) {
      expect(parseRange(h, 10), h).toEqual({ kind: 'unsatisfiable' });
    }
  });
  it('ignores ranges that add up to more than the file', () => {
    expect(parseRange('bytes=0-9,0-9', 10)).toEqual({ kind: 'full' });
  });
  it('treats an empty list as no range', () => {
    expect(parseRange('bytes=', 10)).toEqual({ kind: 'full' });
  });
});

describe('checkPreconditions', () => {
  const v = { mtimeMs: Date.parse('2024-03-01T10:00:00.750Z'), etag: '"abc"' };
  it('answers 304 when If-Modified-Since is at or after the mtime (second precision)', () => {
    expect(checkPreconditions({ ifModifiedSince: 'Fri, 01 Mar 2024 10:00:00 GMT' }, v, 'GET')).toBe(
      'not-modified',
    );
    expect(checkPreconditions({ ifModifiedSince: 'Fri, 01 Mar 2024 09:59:59 GMT' }, v, 'GET')).toBe('ok');
    expect(checkPreconditions({ ifModifiedSince: 'garbage' }, v, 'GET')).toBe('ok');
  });
  it('answers 304 for a matching If-None-Match and lets it override If-Modified-Since', () => {
    expect(checkPreconditions({ ifNoneMatch: 'W/"abc"' }, v, 'HEAD')).toBe('not-modified');
    expect(checkPreconditions({ ifNoneMatch: '"x", "abc"' }, v, 'GET')).toBe('not-modified');
    expect(
      checkPreconditions({ ifNoneMatch: '"x"', ifModifiedSince: 'Fri, 01 Mar 2024 11:00:00 GMT' }, v, 'GET'),
    ).toBe('ok');
  });
  it('answers 412 for If-Unmodified-Since before the mtime and for a failed If-Match', () => {
    expect(checkPreconditions({ ifUnmodifiedSince: 'Fri, 01 Mar 2024 09:00:00 GMT' }, v, 'GET')).toBe(
      'failed',
    );
    expect(checkPreconditions({ ifUnmodifiedSince: 'Fri, 01 Mar 2024 10:00:00 GMT' }, v, 'GET')).toBe('ok');
    expect(checkPreconditions({ ifMatch: '"nope"' }, v, 'GET')).toBe('failed');
    expect(checkPreconditions({ ifMatch: '"abc"' }, v, 'GET')).toBe('ok');
  });
});

describe('ifRangeAllows', () => {
  const v = { mtimeMs: Date.parse('2024-03-01T10:00:00Z'), etag: '"abc"' };
  it('matches the exact date or the strong etag only', () => {
    expect(ifRangeAllows(undefined, v)).toBe(true);
    expect(ifRangeAllows('Fri, 01 Mar 2024 10:00:00 GMT', v)).toBe(true);
    expect(ifRangeAllows('Fri, 01 Mar 2024 10:00:01 GMT', v)).toBe(false);
    expect(ifRangeAllows('"abc"', v)).toBe(true);
    expect(ifRangeAllows('W/"abc"', v)).toBe(false);
    expect(ifRangeAllows('"old"', v)).toBe(false);
  });
});
