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
 * `span`: the width of the button the menu belongs to, `at` being its starting corner; flipped,
 * the menu then ends where the button ends instead of where it starts.
 */
export function placeMenu(at: Point, menu: Size, viewport: Size, rtl: boolean, margin = 8, span = 0): Point {
  const fitsX = (left: number) => left >= margin && left + menu.width <= viewport.width - margin;
  const forward = rtl ? at.x - menu.width : at.x;
  const backward = rtl ? at.x - span : at.x + span - menu.width;
  let x = fitsX(forward) || !fitsX(backward) ? forward : backward;
  let y = at.y + menu.height <= viewport.height - margin ? at.y : at.y - menu.height;
  x = Math.max(margin, Math.min(x, viewport.width - margin - menu.width));
  y = Math.max(margin, Math.min(y, viewport.height - margin - menu.height));
  return { x, y };
}
