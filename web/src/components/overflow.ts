/**
 * Which toolbar items keep their names, which show as icons and which go into the "More" menu,
 * for the width the bar has (OverflowToolbar.tsx measures, this decides).
 */

export interface FitItem {
  /** Its width with its name showing. */
  labelled: number;
  /** Its width as an icon (the same as `labelled` when it has no name to drop). */
  icon: number;
  /** Keeps its name while the others show as icons. */
  primary: boolean;
  /** Its turn to leave for the More menu (lower leaves first); null: it never leaves the bar. */
  leave: number | null;
}

export interface Fit {
  /** Per item: whether it shows its name. */
  labelled: boolean[];
  /** Per item: whether it is in the More menu instead of the bar. */
  hidden: boolean[];
}

/**
 * The first of these that fits `available` px (items `gap` px apart, the More button `more` px
 * wide when anything is hidden), else the last:
 * 1. everything with its name;
 * 2. the primary items with their names, the others as icons;
 * 3. as 2, the other items leaving for the menu one by one in their `leave` order;
 * 4. all the others in the menu, the primary items losing their names one by one (same order,
 *    those that never leave last);
 * 5. everything as icons, items leaving one by one (the primary ones too, after the others).
 * The names of the main actions thus stay as long as there is room for them and a More button;
 * a bar of bare icons is the last resort, for the narrowest bars.
 */
export function fitToolbar(items: readonly FitItem[], available: number, gap: number, more: number): Fit {
  const width = (fit: Fit) => {
    let total = 0;
    let shown = 0;
    items.forEach((item, i) => {
      if (fit.hidden[i]) return;
      total += fit.labelled[i] ? item.labelled : item.icon;
      shown += 1;
    });
    const anyHidden = fit.hidden.some(Boolean);
    const count = shown + (anyHidden ? 1 : 0);
    return total + (anyHidden ? more : 0) + gap * Math.max(0, count - 1);
  };
  // Items in their `leave` order (later ones first among equals); those that never leave last.
  const inTurn = (which: (item: FitItem) => boolean) =>
    items
      .map((item, i) => ({ item, i }))
      .filter(({ item }) => which(item))
      .sort((a, b) => (a.item.leave ?? Infinity) - (b.item.leave ?? Infinity) || b.i - a.i)
      .map(({ i }) => i);
  const leaving = (which: (item: FitItem) => boolean) => inTurn((item) => item.leave !== null && which(item));

  const none = items.map(() => false);
  const candidates: Fit[] = [{ labelled: items.map(() => true), hidden: none }];
  const primaryLabelled = items.map((item) => item.primary);
  candidates.push({ labelled: primaryLabelled, hidden: none });
  let hidden = none;
  for (const i of leaving((item) => !item.primary)) {
    hidden = hidden.map((h, j) => h || j === i);
    candidates.push({ labelled: primaryLabelled, hidden });
  }
  let labelled = primaryLabelled;
  for (const i of inTurn((item) => item.primary)) {
    labelled = labelled.map((l, j) => l && j !== i);
    candidates.push({ labelled, hidden });
  }
  const icons = items.map(() => false);
  hidden = none;
  candidates.push({ labelled: icons, hidden });
  for (const i of [...leaving((item) => !item.primary), ...leaving((item) => item.primary)]) {
    hidden = hidden.map((h, j) => h || j === i);
    candidates.push({ labelled: icons, hidden });
  }
  let last = candidates[0] ?? { labelled: [], hidden: [] };
  for (const fit of candidates) {
    last = fit;
    // Rounding of measured widths: half a pixel too many must not push an item out.
    if (width(fit) <= available + 0.5) return fit;
  }
  return last;
}
