import { describe, expect, it } from 'vitest';
import { fitToolbar, type FitItem } from './overflow';

/** Labelled 100 px, icon 40 px; `leave` order as given. */
const item = (primary: boolean, leave: number | null = 0): FitItem => ({
  labelled: 100,
  icon: 40,
  primary,
  leave,
});
const GAP = 5;
const MORE = 40;

// Three primary actions and three others, the others leaving last-first.
const bar = [item(true, 10), item(true, 11), item(true, 12), item(false, 3), item(false, 2), item(false, 1)];
const labelled = (fit: { labelled: boolean[] }) => fit.labelled.map((l) => (l ? 'L' : 'i')).join('');
const hidden = (fit: { hidden: boolean[] }) => fit.hidden.map((h) => (h ? 'x' : '.')).join('');

describe('fitToolbar', () => {
  it('shows every name when everything fits', () => {
    const fit = fitToolbar(bar, 6 * 100 + 5 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('LLLLLL');
    expect(hidden(fit)).toBe('......');
  });

  it('then keeps the names of the primary actions and shows the others as icons', () => {
    const fit = fitToolbar(bar, 3 * 100 + 3 * 40 + 5 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('LLLiii');
    expect(hidden(fit)).toBe('......');
  });

  it('then moves the others into the More menu, lowest leave first, before dropping a name', () => {
    // Room for the three names, one icon and More.
    const fit = fitToolbar(bar, 3 * 100 + 40 + MORE + 4 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('LLLiii');
    expect(hidden(fit)).toBe('....xx');
    // Room for the three names and More only.
    expect(hidden(fitToolbar(bar, 3 * 100 + MORE + 3 * GAP, GAP, MORE))).toBe('...xxx');
  });

  it('then drops the names of the primary actions one by one, the others staying in the menu', () => {
    // Room for two names, one icon and More: the first to leave is the first to lose its name.
    const fit = fitToolbar(bar, 2 * 100 + 40 + MORE + 3 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('iLLiii');
    expect(hidden(fit)).toBe('...xxx');
    expect(labelled(fitToolbar(bar, 100 + 2 * 40 + MORE + 3 * GAP, GAP, MORE))).toBe('iiLiii');
  });

  it('shows bare icons only when not even one name fits', () => {
    const fit = fitToolbar(bar, 3 * 40 + MORE + 3 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('iiiiii');
    expect(hidden(fit)).toBe('...xxx');
    // Narrower still: the primary actions leave too, by their own order.
    expect(hidden(fitToolbar(bar, 2 * 40 + MORE + 2 * GAP, GAP, MORE))).toBe('x..xxx');
    // A bar without primary actions shows icons as long as they fit, before anything leaves.
    const plain = bar.map((b) => ({ ...b, primary: false }));
    expect(labelled(fitToolbar(plain, 6 * 40 + 5 * GAP, GAP, MORE))).toBe('iiiiii');
    expect(hidden(fitToolbar(plain, 6 * 40 + 5 * GAP, GAP, MORE))).toBe('......');
  });

  it('takes the name of a primary item that never leaves last', () => {
    const close = [item(true, null), item(true, 1), item(false, 0)];
    // Room for one name, an icon and More.
    const fit = fitToolbar(close, 100 + 40 + MORE + 2 * GAP, GAP, MORE);
    expect(labelled(fit)).toBe('Lii');
    expect(hidden(fit)).toBe('..x');
    expect(labelled(fitToolbar(close, 2 * 40 + MORE + 2 * GAP, GAP, MORE))).toBe('iii');
  });

  it('never hides an item that cannot leave, even when nothing fits', () => {
    const fixed = [item(true, null), item(false, 1), item(false, null)];
    const fit = fitToolbar(fixed, 10, GAP, MORE);
    expect(hidden(fit)).toBe('.x.');
    expect(labelled(fit)).toBe('iii');
  });

  it('counts half a pixel of rounding as fitting', () => {
    expect(hidden(fitToolbar([item(true)], 99.6, GAP, MORE))).toBe('.');
  });
});
