import { describe, expect, it } from 'vitest';
import { placeMenu } from './placement';

const viewport = { width: 375, height: 812 };
const menu = { width: 200, height: 300 };

describe('placeMenu', () => {
  it('opens right of and below the point when it fits', () => {
    expect(placeMenu({ x: 20, y: 100 }, menu, viewport, false)).toEqual({ x: 20, y: 100 });
  });

  it('flips left and up near the right and bottom edges', () => {
    expect(placeMenu({ x: 300, y: 700 }, menu, viewport, false)).toEqual({ x: 100, y: 400 });
  });

  it('opens to the left in right-to-left layouts, flipping right near the left edge', () => {
    expect(placeMenu({ x: 300, y: 100 }, menu, viewport, true)).toEqual({ x: 100, y: 100 });
    expect(placeMenu({ x: 50, y: 100 }, menu, viewport, true)).toEqual({ x: 50, y: 100 });
  });

  it('under a menu button, flips to end where the button ends', () => {
    // A 40 px button at the right edge: the menu's right edge meets the button's.
    expect(placeMenu({ x: 320, y: 60 }, menu, viewport, false, 8, 40)).toEqual({ x: 160, y: 60 });
    expect(placeMenu({ x: 20, y: 60 }, menu, viewport, false, 8, 40)).toEqual({ x: 20, y: 60 });
    // Right to left: the button's starting corner is its right edge (x 55, it spans 15–55).
    expect(placeMenu({ x: 55, y: 60 }, menu, viewport, true, 8, 40)).toEqual({ x: 15, y: 60 });
  });

  it('clamps inside the margin when neither side fits', () => {
    expect(placeMenu({ x: 190, y: 400 }, { width: 300, height: 600 }, viewport, false)).toEqual({
      x: 67,
      y: 8,
    });
    expect(placeMenu({ x: 10, y: 10 }, { width: 400, height: 900 }, viewport, false)).toEqual({ x: 8, y: 8 });
  });
});
