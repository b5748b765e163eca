import type { User } from '@coffer/protocol';
import { describe, expect, it } from 'vitest';
import {
  cleanUsername,
  draftFromUser,
  draftProblems,
  homeFolder,
  newDraft,
  problemFromError,
  userData,
  type UserSettings,
} from './userDraft';
import { ALL_BUT_ADMIN, userDefaults } from '../../test/fixtures';

const settings = (over: Partial<UserSettings> = {}): UserSettings => ({
  defaults: userDefaults({ commands: ['ls'] }),
  createUserDir: false,
  userHomeBasePath: '/users',
  minimumPasswordLength: 12,
  ...over,
});

const alice: User = {
  quota: 5 * 1024 ** 3,
  id: 3,
  username: 'alice',
  password: '',
  scope: '/users/alice',
  locale: 'fr',
  lockPassword: true,
  viewMode: 'list',
  singleClick: true,
  redirectAfterCopyMove: false,
  perm: { ...ALL_BUT_ADMIN, execute: false },
  commands: [],
  sorting: { by: 'size', asc: true },
  rules: [{ allow: false, regex: false, path: '/secret', regexp: null }],
  hideDotfiles: true,
  dateFormat: true,
  aceEditorTheme: 'dracula',
};

describe('newDraft', () => {
  it('starts from the defaults, with the home folder as the setting says', () => {
    const draft = newDraft(settings());
    expect(draft).toMatchObject({ username: '', password: '', scope: '.', createHome: false, locale: 'en', commands: ['ls'] });
    expect(newDraft(settings({ createUserDir: true }))).toMatchObject({ scope: '', createHome: true });
  });
});

describe('userData', () => {
  it('keeps what the form does not show of an existing user, and an empty password', () => {
    const data = userData({ ...draftFromUser(alice), username: ' alice2 ' }, alice, null);
    expect(data).toMatchObject({
      username: 'alice2',
      password: '',
      viewMode: 'list',
      singleClick: true,
      sorting: { by: 'size', asc: true },
      hideDotfiles: true,
      aceEditorTheme: 'dracula',
      lockPassword: true,
    });
    // Path rules go back with an empty regexp (docs/api.md §3.1).
    expect(data.rules).toEqual([{ allow: false, regex: false, path: '/secret', regexp: { raw: '' } }]);
    // The quota round-trips through the form's amount and unit.
    expect(draftFromUser(alice).quota).toEqual({ amount: '5', unit: 'GiB' });
    expect(data.quota).toBe(5 * 1024 ** 3);
  });

  it('never locks an admin password', () => {
    const draft = { ...draftFromUser(alice), perm: { ...ALL_BUT_ADMIN, admin: true } };
    expect(userData(draft, alice, null).lockPassword).toBe(false);
  });

  it('gives a new user the defaults for the rest', () => {
    const data = userData({ ...newDraft(settings()), username: 'bob', password: 'x' }, null, settings());
    expect(data).toMatchObject({ username: 'bob', scope: '.', viewMode: 'mosaic', redirectAfterCopyMove: true, commands: ['ls'] });
  });

  it('lets the server derive the home folder when createUserDir is on, names it otherwise', () => {
    const on = settings({ createUserDir: true });
    expect(userData({ ...newDraft(on), username: 'Bob Smith' }, null, on).scope).toBe('');
    const off = settings({ userHomeBasePath: '/home/' });
    const draft = { ...newDraft(off), username: 'Bob Smith', createHome: true, scope: '' };
    expect(userData(draft, null, off).scope).toBe('/home/Bob-Smith');
  });
});

describe('cleanUsername and homeFolder', () => {
  it('follow the server rule for folder names', () => {
    expect(cleanUsername(' a..b c/d ')).toBe('ab-c-d');
    expect(cleanUsername('é  x')).toBe('-x');
    expect(cleanUsername('..')).toBe('');
    expect(cleanUsername('-')).toBe('');
    expect(homeFolder('/users', 'Zoë')).toBe('/users/Zo-');
    expect(homeFolder('/', 'bob')).toBe('/bob');
    expect(homeFolder('users//x/', 'bob')).toBe('/users/x/bob');
    expect(homeFolder('/users', '...')).toBeNull();
    expect(homeFolder('/users', '/')).toBeNull();
  });
});

describe('draftProblems', () => {
  const base = { ...newDraft(settings()), username: 'bob', password: 'long-enough-pass' };

  it('wants a name, a password for new users, and the minimum length', () => {
    expect(draftProblems({ ...base, username: '  ' }, { isNew: true, minLength: 12, current: null })).toEqual([
      { field: 'username', key: 'usernameRequired' },
    ]);
    expect(draftProblems({ ...base, password: '' }, { isNew: true, minLength: 12, current: null })).toEqual([
      { field: 'password', key: 'passwordRequired' },
    ]);
    expect(draftProblems({ ...base, password: 'short' }, { isNew: false, minLength: 12, current: null })).toEqual([
      { field: 'password', key: 'passwordTooShort', min: 12 },
    ]);
    // Bytes, as the server counts: 6 characters, 12 bytes.
    expect(draftProblems({ ...base, password: 'éééééé' }, { isNew: true, minLength: 12, current: null })).toEqual([]);
  });

  it('keeps an existing password when the field is left empty', () => {
    expect(draftProblems({ ...base, password: '' }, { isNew: false, minLength: 12, current: null })).toEqual([]);
  });

  it('wants the current password when asked, and rules that make sense', () => {
    const rules = [{ allow: false, regex: true, path: '', regexp: { raw: '(' } }];
    expect(draftProblems({ ...base, rules }, { isNew: false, minLength: null, current: '' })).toEqual([
      { field: 'rules', key: 'rules', index: 0, message: null },
      { field: 'current', key: 'currentRequired' },
    ]);
  });

  it('wants a name that gives a folder when the home folder is derived', () => {
    expect(
      draftProblems({ ...base, username: '..', createHome: true }, { isNew: true, minLength: null, current: null }),
    ).toEqual([{ field: 'username', key: 'usernameNoFolder' }]);
  });
});

describe('problemFromError', () => {
  it('puts a taken name on the username and a taken home on the scope', () => {
    expect(problemFromError(409, '409 Conflict')).toEqual({ field: 'username', key: 'usernameTaken' });
    expect(problemFromError(409, '409 Conflict (home folder already used by another user)')).toEqual({
      field: 'scope',
      key: 'homeTaken',
    });
  });

  it('reads the password rules and the current password', () => {
    expect(problemFromError(400, '400 Bad Request (password is too short, minimum length is 16)')).toEqual({
      field: 'password',
      key: 'passwordTooShort',
      min: 16,
    });
    expect(problemFromError(400, '400 Bad Request (password is too easy)')).toMatchObject({ key: 'passwordTooEasy' });
    expect(problemFromError(400, '400 Bad Request (the current password is incorrect)')).toMatchObject({
      field: 'current',
      key: 'currentWrong',
    });
  });

  it('reads scope and rule refusals', () => {
    expect(problemFromError(400, '400 Bad Request (the scope climbs above the server root)')).toMatchObject({
      field: 'scope',
      key: 'scopeOutside',
    });
    expect(problemFromError(400, '400 Bad Request (invalid rule: rule 2: lookbehind is not supported)')).toEqual({
      field: 'rules',
      key: 'rules',
      index: 1,
      message: 'lookbehind is not supported',
    });
  });

  it('calls a 403 the last admin, and passes anything else on', () => {
    expect(problemFromError(403, '403 Forbidden')).toMatchObject({ field: null, key: 'lastAdmin' });
    expect(problemFromError(500, 'boom')).toEqual({ field: null, key: null, message: 'boom' });
    expect(problemFromError(400, '400 Bad Request (odd)')).toEqual({ field: null, key: null, message: '400 Bad Request (odd)' });
  });
});
