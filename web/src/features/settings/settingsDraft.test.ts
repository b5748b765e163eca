import type { Settings } from '@coffer/protocol';
import { describe, expect, it } from 'vitest';
import {
  editableSettings,
  hasProblems,
  serverProblem,
  settingsProblems,
  settingsToSave,
  textsOf,
  wholeNumberAtLeast,
} from './settingsDraft';
import { userDefaults } from '../../test/fixtures';

const SETTINGS: Settings = {
  signup: false,
  hideLoginButton: true,
  createUserDir: false,
  minimumPasswordLength: 12,
  userHomeBasePath: '/users',
  defaults: userDefaults(),
  authMethod: 'json',
  rules: [{ allow: false, regex: false, path: '/private', regexp: null }],
  branding: {
    name: '',
    disableExternal: false,
    disableUsedPercentage: false,
    files: '',
    theme: '',
    color: '',
  },
  tus: { chunkSize: 10485760, retryCount: 5 },
  shell: [],
  commands: { before_save: [], after_save: [] },
  webdav: { refuseMacMetadata: true },
};

describe('global settings form', () => {
  it('reads whole numbers with a lower bound', () => {
    expect(wholeNumberAtLeast('12', 1)).toBe(12);
    expect(wholeNumberAtLeast(' 0 ', 0)).toBe(0);
    expect(wholeNumberAtLeast('0', 1)).toBeNull();
    expect(wholeNumberAtLeast('-1', 0)).toBeNull();
    expect(wholeNumberAtLeast('1.5', 0)).toBeNull();
    expect(wholeNumberAtLeast('', 0)).toBeNull();
  });

  it('shows the numbers and the chunk size as text', () => {
    expect(textsOf(SETTINGS)).toEqual({ minimumPasswordLength: '12', retryCount: '5', chunkSize: '10MB', quotaAmount: '', quotaUnit: 'GiB' });
    expect(textsOf({ ...SETTINGS, defaults: { ...SETTINGS.defaults, quota: 3 * 1024 ** 4 } })).toMatchObject({ quotaAmount: '3', quotaUnit: 'TiB' });
  });

  it('refuses a minimum password length below 1 and a negative retry count', () => {
    const s = editableSettings(SETTINGS);
    const ok = settingsProblems(s, textsOf(s));
    expect(hasProblems(ok)).toBe(false);
    const bad = settingsProblems(s, { minimumPasswordLength: '0', retryCount: '-2', chunkSize: 'whatever', quotaAmount: '', quotaUnit: 'GiB' });
    expect(bad.numbers).toEqual({ minimumPasswordLength: 1, retryCount: 0 });
    expect(hasProblems(bad)).toBe(true);
  });

  it('refuses a default quota that is not a positive number, and takes an empty one as none', () => {
    const s = editableSettings(SETTINGS);
    const texts = { ...textsOf(s), quotaAmount: '-3' };
    expect(settingsProblems(s, texts).quota).toBe(true);
    expect(settingsProblems(s, { ...texts, quotaAmount: '' }).quota).toBe(false);
    expect(settingsToSave(s, { ...texts, quotaAmount: '' }).defaults.quota).toBe(0);
  });

  it('refuses incomplete rules', () => {
    const s = editableSettings({
      ...SETTINGS,
      rules: [{ allow: true, regex: true, path: '', regexp: { raw: '[' } }],
    });
    expect(settingsProblems(s, textsOf(s)).rules).toBe(true);
  });

  it('sends every field, path rules with {raw: ""}, the typed numbers and the parsed chunk size', () => {
    const s = editableSettings(SETTINGS);
    const body = settingsToSave(s, { minimumPasswordLength: '8', retryCount: '0', chunkSize: '2.5MB', quotaAmount: '2', quotaUnit: 'GiB' });
    expect(body.minimumPasswordLength).toBe(8);
    expect(body.tus).toEqual({ chunkSize: 2.5 * 1024 * 1024, retryCount: 0 });
    expect(body.defaults.quota).toBe(2 * 1024 ** 3);
    expect(body.rules).toEqual([{ allow: false, regex: false, path: '/private', regexp: { raw: '' } }]);
    expect(body.hideLoginButton).toBe(true);
    expect(body.branding).toEqual(SETTINGS.branding);
    expect(settingsToSave(s, { ...textsOf(s), chunkSize: 'lots' }).tus.chunkSize).toBe(1024 * 1024);
    expect(settingsToSave(s, { ...textsOf(s), chunkSize: '0' }).tus.chunkSize).toBe(0);
  });

  it('points server refusals at their field', () => {
    expect(
      serverProblem('400 Bad Request (invalid rule: rule 3: lookahead is not allowed at position 2)'),
    ).toEqual({
      field: 'rules',
      index: 2,
      message: 'lookahead is not allowed at position 2',
    });
    expect(serverProblem('400 Bad Request (userHomeBasePath climbs above the server root)')).toEqual({
      field: 'userHomeBasePath',
      message: 'userHomeBasePath climbs above the server root',
    });
    expect(serverProblem('400 Bad Request (defaults.scope is not a valid path)')?.field).toBe('scope');
    expect(serverProblem('400 Bad Request (invalid JSON)')).toBeNull();
  });
});
