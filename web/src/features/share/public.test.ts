import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import { pageState, parseShareSplat, previewKind, shareRoute } from './public';

describe('parseShareSplat', () => {
  it.each([
    ['abc', 'abc', '/'],
    ['abc/', 'abc', '/'],
    ['abc/sub/a b.txt', 'abc', '/sub/a b.txt'],
    ['abc/sub/', 'abc', '/sub/'],
    [undefined, '', '/'],
  ])('reads %j', (splat, hash, path) => {
    expect(parseShareSplat(splat)).toEqual({ hash, path });
  });
});

describe('shareRoute', () => {
  it('encodes each segment and ends folders in /', () => {
    expect(shareRoute('h-1', { path: '/sub', isDir: true })).toBe('/share/h-1/sub/');
    expect(shareRoute('h-1', { path: '/a b/c#d.txt', isDir: false })).toBe('/share/h-1/a%20b/c%23d.txt');
    expect(shareRoute('h-1', { path: '/', isDir: true })).toBe('/share/h-1/');
  });
});

describe('pageState', () => {
  it('is ready without an error', () => {
    expect(pageState(null, false)).toEqual({ kind: 'ready' });
  });

  it('asks for the password on 401, and says it was wrong once one was typed', () => {
    expect(pageState(new ApiError(401, '401 Unauthorized'), false)).toEqual({
      kind: 'password',
      wrong: false,
      retryAfter: null,
    });
    expect(pageState(new ApiError(401, '401 Unauthorized'), true)).toMatchObject({ wrong: true });
  });

  it('says how long to wait after too many wrong passwords', () => {
    expect(pageState(new ApiError(429, 'x', false, 600), true)).toEqual({
      kind: 'password',
      wrong: false,
      retryAfter: 600,
    });
  });

  it('shows the error page for anything else', () => {
    expect(pageState(new ApiError(404, 'x'), false)).toEqual({ kind: 'error', code: 404 });
    expect(pageState(new ApiError(403, 'x'), true)).toEqual({ kind: 'error', code: 403 });
    expect(pageState(new ApiError(0, 'x'), false)).toEqual({ kind: 'error', code: 0 });
    expect(pageState(new ApiError(500, 'x'), false)).toEqual({ kind: 'error', code: 500 });
  });
});

describe('previewKind', () => {
  it('previews images, audio and video files only', () => {
    expect(previewKind({ isDir: false, type: 'image' })).toBe('image');
    expect(previewKind({ isDir: false, type: 'audio' })).toBe('audio');
    expect(previewKind({ isDir: false, type: 'video' })).toBe('video');
    expect(previewKind({ isDir: false, type: 'pdf' })).toBeNull();
    expect(previewKind({ isDir: true, type: '' })).toBeNull();
  });
});
