/**
 * Theme (docs/client.md §4 "Theme"): the user's choice kept in this browser, else the instance's branding
 * theme, else the system colour scheme; applied as a class on the root element.
 */
import { create } from 'zustand';
import { config } from '../config';

export type ThemeChoice = 'system' | 'light' | 'dark';
export type EffectiveTheme = 'light' | 'dark';

const STORAGE_KEY = 'coffer.theme';

function isChoice(v: unknown): v is ThemeChoice {
  return v === 'system' || v === 'light' || v === 'dark';
}

/** No stored choice → the branding theme ("light"/"dark"; anything else means the system's). */
export function initialChoice(stored: string | null, branding: string): ThemeChoice {
  if (isChoice(stored)) return stored;
  return branding === 'light' || branding === 'dark' ? branding : 'system';
}

export function effectiveTheme(choice: ThemeChoice, systemDark: boolean): EffectiveTheme {
  if (choice === 'system') return systemDark ? 'dark' : 'light';
  return choice;
}

interface ThemeState {
  choice: ThemeChoice;
}

function readStored(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const useTheme = create<ThemeState>()(() => ({ choice: initialChoice(readStored(), config.Theme) }));

const media =
  typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;

export function applyTheme(): void {
  const theme = effectiveTheme(useTheme.getState().choice, media?.matches ?? false);
  const root = document.documentElement;
  root.classList.toggle('dark', theme === 'dark');
  root.classList.toggle('light', theme === 'light');
  root.style.colorScheme = theme;
}

export function setThemeChoice(choice: ThemeChoice): void {
  localStorage.setItem(STORAGE_KEY, choice);
  useTheme.setState({ choice });
  applyTheme();
}

/** Applies the theme now and follows system changes while the choice is "system". */
export function startTheme(): void {
  applyTheme();
  media?.addEventListener('change', applyTheme);
}
