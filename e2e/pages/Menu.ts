import type { Locator } from '@playwright/test';

/** A menu's entry by name: a plain entry or a toggle (menuitemcheckbox). */
export function menuEntry(menu: Locator, name: string): Locator {
  return menu.getByRole('menuitem', { name }).or(menu.getByRole('menuitemcheckbox', { name })).first();
}
