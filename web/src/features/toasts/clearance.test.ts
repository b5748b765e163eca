import { describe, expect, it } from 'vitest';
import { toastClearance } from './clearance';

// A 375 × 812 phone: the drawer 300 px wide at the left, toasts 16 px from the sides.
const drawer = { left: 0, right: 300, bottom: 812 };
const toast = (top: number, left = 16, right = 359) => ({ top, left, right });

describe('toastClearance', () => {
  it('is 0 without toasts', () => {
    expect(toastClearance(drawer, [])).toBe(0);
  });

  it('reaches the top of the highest toast that crosses the panel', () => {
    expect(toastClearance(drawer, [toast(700), toast(740.4)])).toBe(112);
  });

  it('ignores toasts beside the panel (centred on a wide window)', () => {
    expect(toastClearance({ left: 0, right: 248, bottom: 800 }, [toast(730, 352, 928)])).toBe(0);
    expect(
      toastClearance({ left: 0, right: 248, bottom: 800 }, [toast(730, 352, 928), toast(660, 200, 1080)]),
    ).toBe(140);
  });

  it('works for a panel on the right (right-to-left pages)', () => {
    expect(toastClearance({ left: 75, right: 375, bottom: 812 }, [toast(700)])).toBe(112);
    expect(toastClearance({ left: 75, right: 375, bottom: 812 }, [toast(700, 0, 75)])).toBe(0);
  });
});
