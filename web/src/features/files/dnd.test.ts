import { describe, expect, it } from 'vitest';
import { canDropOn, folderPath, isItemsDrag, ITEMS_DRAG_TYPE } from './dnd';

const drag = {
  from: '/docs/',
  items: [
    { path: '/docs/photos', name: 'photos' },
    { path: '/docs/a.txt', name: 'a.txt' },
  ],
};

describe('canDropOn', () => {
  it('allows a sibling folder and any folder above', () => {
    expect(canDropOn('/docs/archive/', drag)).toBe(true);
    expect(canDropOn('/', drag)).toBe(true);
    expect(canDropOn('/other/deep/', drag)).toBe(true);
  });

  it('refuses the folder the items are in', () => {
    expect(canDropOn('/docs/', drag)).toBe(false);
  });

  it('refuses a dragged folder itself and anything inside it', () => {
    expect(canDropOn('/docs/photos/', drag)).toBe(false);
    expect(canDropOn('/docs/photos/2024/', drag)).toBe(false);
  });

  it('does not mistake a folder whose name starts the same for a child', () => {
    expect(canDropOn('/docs/photos-old/', drag)).toBe(true);
  });

  it('refuses when nothing is dragged', () => {
    expect(canDropOn('/x/', null)).toBe(false);
    expect(canDropOn('/x/', { from: '/', items: [] })).toBe(false);
  });
});

describe('drag helpers', () => {
  it('tells the browser’s own drags from files dragged in', () => {
    expect(isItemsDrag([ITEMS_DRAG_TYPE])).toBe(true);
    expect(isItemsDrag(['Files'])).toBe(false);
  });

  it('gives a folder item its path with one trailing slash', () => {
    expect(folderPath('/a/b')).toBe('/a/b/');
    expect(folderPath('/a/b/')).toBe('/a/b/');
  });
});
