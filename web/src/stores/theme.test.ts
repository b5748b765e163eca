import { describe, expect, it } from 'vitest';
import { effectiveTheme, initialChoice } from './theme';

describe('theme', () => {
  it("takes the user's stored choice first", () => {
    expect(initialChoice('dark', 'light')).toBe('dark');
    expect(initialChoice('system', 'dark')).toBe('system');
  });
  it('falls back to the branding theme, then the system', () => {
    expect(initialChoice(null, 'light')).toBe('light');
    expect(initialChoice('bogus', '')).toBe('system');
    expect(initialChoice(null, 'default')).toBe('system');
  });
  it('follows the system colour scheme for "system"', () => {
    expect(effectiveTheme('system', true)).toBe('dark');
    expect(effectiveTheme('system', false)).toBe('light');
    expect(effectiveTheme('light', true)).toBe('light');
  });
});
