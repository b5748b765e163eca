import { describe, expect, it } from 'vitest';
import { assertWellFormedText, isWellFormedText } from './json-text.js';

describe('isWellFormedText / assertWellFormedText', () => {
  it('accepts any well-formed text, astral characters included', () => {
    expect(isWellFormedText('plain ünï 😀 text')).toBe(true);
    expect(() => assertWellFormedText({ a: ['😀', { b: 'x' }], n: 1, t: true, z: null })).not.toThrow();
  });
  it('refuses lone surrogates anywhere in the value, keys too', () => {
    expect(isWellFormedText('a\ud800')).toBe(false);
    expect(isWellFormedText('\udc00a')).toBe(false);
    expect(isWellFormedText('\ud83d\ude00\ude00')).toBe(false);
    expect(() => assertWellFormedText({ a: [{ b: 'x\ud800' }] })).toThrow(/invalid Unicode/);
    expect(() => assertWellFormedText({ ['k\udfff']: 1 })).toThrow(/invalid Unicode/);
  });
  it('refuses absurdly deep nesting instead of recursing without end', () => {
    let v: unknown = 'x';
    for (let i = 0; i < 100; i++) v = [v];
    expect(() => assertWellFormedText(v)).toThrow(/too deeply/);
  });
});
