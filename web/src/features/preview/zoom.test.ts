import { describe, expect, it } from 'vitest';
import { fitScale, nextZoom } from './zoom';

describe('fitScale', () => {
  it('shrinks a large image to the box, keeping its aspect ratio', () => {
    expect(fitScale({ width: 4000, height: 2000 }, { width: 1000, height: 800 })).toBe(0.25);
    expect(fitScale({ width: 1000, height: 4000 }, { width: 1000, height: 800 })).toBe(0.2);
  });

  it('never enlarges a small image', () => {
    expect(fitScale({ width: 100, height: 50 }, { width: 1000, height: 800 })).toBe(1);
  });

  it('treats an image without size as its own size', () => {
    expect(fitScale({ width: 0, height: 0 }, { width: 10, height: 10 })).toBe(1);
  });
});

describe('nextZoom', () => {
  it('steps up and down from a step', () => {
    expect(nextZoom(1, 1)).toBe(1.5);
    expect(nextZoom(1, -1)).toBe(0.75);
  });

  it('steps from a fitted scale between steps to the next one', () => {
    expect(nextZoom(0.3, 1)).toBe(0.5);
    expect(nextZoom(0.3, -1)).toBe(0.25);
  });

  it('stays within the smallest and largest step', () => {
    expect(nextZoom(8, 1)).toBe(8);
    expect(nextZoom(0.1, -1)).toBe(0.1);
    expect(nextZoom(0.01, -1)).toBe(0.1);
  });
});
