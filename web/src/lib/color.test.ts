import { describe, expect, it } from 'vitest';
import { brandAccent, contrastRatio } from './color';

describe('brandAccent', () => {
  it('puts white text on a dark colour and black text on a light one', () => {
    expect(brandAccent('#1c5fd1')).toEqual({ accent: '#1c5fd1', onAccent: '#ffffff' });
    expect(brandAccent('#FFD54F')).toEqual({ accent: '#ffd54f', onAccent: '#000000' });
    expect(brandAccent('#abc')?.onAccent).toBe('#000000');
  });
  it('ignores anything that is not a hex colour', () => {
    expect(brandAccent('')).toBeNull();
    expect(brandAccent('red; background: url(x)')).toBeNull();
  });
});

describe('contrastRatio', () => {
  it('is 21 for black on white', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
  });
});
