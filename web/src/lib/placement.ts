/** Where a popup menu opened at a point goes so that it stays inside the viewport. */

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

/**
 * The menu's top-left corner: it opens towards the reading direction's end and below the point,
 * flips to the other side when it would not fit, and is finally clamped `margin` px inside.
 */
export function placeMenu(at: Point, menu: Size, viewport: Size, rtl: boolean, margin = 8): Point {
  const fitsX = (left: number) => left >= margin && left + menu.width <= viewport.width - margin;
  const forward = rtl ? at.x - menu.width : at.x;
  const backward = rtl ? at.x : at.x - menu.width;
  let x = fitsX(forward) || !fitsX(backward) ? forward : backward;
  let y = at.y + menu.height <= viewport.height - margin ? at.y : at.y - menu.height;
  x = Math.max(margin, Math.min(x, viewport.width - margin - menu.width));
  y = Math.max(margin, Math.min(y, viewport.height - margin - menu.height));
  return { x, y };
}
