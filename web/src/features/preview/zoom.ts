/** Image zoom: "fit" shows the whole image (never enlarged), numbers are scales of the original. */

export type Zoom = 'fit' | number;

export const ZOOM_STEPS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8] as const;

export interface Size {
  width: number;
  height: number;
}

/** The scale at which `image` fits inside `box`, at most 1. */
export function fitScale(image: Size, box: Size): number {
  if (image.width <= 0 || image.height <= 0) return 1;
  return Math.min(1, box.width / image.width, box.height / image.height);
}

/** The next step above (`1`) or below (`-1`) `scale`, staying within the steps. */
export function nextZoom(scale: number, direction: 1 | -1): number {
  const EPSILON = 1e-6;
  if (direction > 0) return ZOOM_STEPS.find((s) => s > scale + EPSILON) ?? ZOOM_STEPS[ZOOM_STEPS.length - 1]!;
  return [...ZOOM_STEPS].reverse().find((s) => s < scale - EPSILON) ?? ZOOM_STEPS[0];
}
