import { describe, expect, it } from 'vitest';
import { HttpError } from '../../http/errors.js';
import { cleanUsername, homeScope, validateUsername } from './home.js';

describe('cleanUsername', () => {
  it.each([
    ['alice', 'alice'],
    ['  Bob Smith  ', 'Bob-Smith'],
    ['a..b', 'ab'],
    ['../../etc', '-etc'],
    ['a/b\\c', 'a-b-c'],
    ['x@y_z.-w', 'x@y_z.-w'],
    ['José', 'Jos-'],
    ['a   b', 'a-b'],
    ['a...b', 'a.b'],
    ['.hidden', '.hidden'],
  ])('%j → %j', (input, expected) => {
    expect(cleanUsername(input)).toBe(expected);
  });

  it.each(['', '   ', '..', '-', '.', '...', '💥', '/'])('leaves nothing usable of %j', (input) => {
    expect(cleanUsername(input)).toBe('');
  });

  it('never yields a path separator or a ".." segment', () => {
    for (const input of ['..../..', '. . .', './..//..', 'a/../../b']) {
      const out = cleanUsername(input);
      expect(out).not.toMatch(/[/\\]/);
      expect(out).not.toBe('..');
    }
  });
});

describe('homeScope', () => {
  it('joins the canonical base and the cleaned name', () => {
    expect(homeScope('/users', 'alice')).toBe('/users/alice');
    expect(homeScope('users/', 'Bob Smith')).toBe('/users/Bob-Smith');
    expect(homeScope('/', 'x')).toBe('/x');
    expect(homeScope('', 'x')).toBe('/x');
  });
  it('refuses a name with nothing usable (400)', () => {
    expect(() => homeScope('/users', '..')).toThrow(HttpError);
  });
});

describe('validateUsername', () => {
  it('accepts ordinary names up to 255 characters', () => {
    expect(() => validateUsername('alice')).not.toThrow();
    expect(() => validateUsername('ü'.repeat(255))).not.toThrow();
  });
  it.each(['', '  ', 'a\u0000b', 'a\nb', 'a\tb', 'a\u007fb', 'a\u0085b', 'x'.repeat(256)])('refuses %j with 400', (name) => {
    try {
      validateUsername(name);
      expect.unreachable();
    } catch (err) {
      expect((err as HttpError).status).toBe(400);
    }
  });
});
