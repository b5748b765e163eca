import { describe, expect, it } from 'vitest';
import { passwordFormProblem, passwordLength, passwordMatch, passwordProblemFromError } from './password';

const form = (over: Partial<Parameters<typeof passwordFormProblem>[0]>) =>
  passwordFormProblem({
    current: 'old',
    password: 'new-secret-1',
    confirm: 'new-secret-1',
    needsCurrent: true,
    minLength: null,
    ...over,
  });

describe('password form', () => {
  it('shows nothing until the confirmation is typed, then whether it matches', () => {
    expect(passwordMatch('abc', '')).toBe('empty');
    expect(passwordMatch('abc', 'abc')).toBe('match');
    expect(passwordMatch('abc', 'abd')).toBe('mismatch');
  });

  it('sends nothing unless both fields are filled and equal', () => {
    expect(form({ password: '', confirm: '' })).toEqual({ field: 'password', key: 'required' });
    expect(form({ confirm: 'other' })).toEqual({ field: 'confirm', key: 'mismatch' });
    expect(form({ confirm: '' })).toEqual({ field: 'confirm', key: 'mismatch' });
    expect(form({})).toBeNull();
  });

  it('checks the minimum length in bytes when it is known', () => {
    expect(form({ password: 'short', confirm: 'short', minLength: 12 })).toEqual({
      field: 'password',
      key: 'tooShort',
      min: 12,
    });
    expect(passwordLength('ééé')).toBe(6);
    expect(form({ password: 'éééééé', confirm: 'éééééé', minLength: 12 })).toBeNull();
  });

  it('asks for the current password only when the server needs it', () => {
    expect(form({ current: '' })).toEqual({ field: 'current', key: 'currentRequired' });
    expect(form({ current: '', needsCurrent: false })).toBeNull();
  });

  it('reads the server refusals', () => {
    expect(passwordProblemFromError('400 Bad Request (password is too short, minimum length is 14)')).toEqual(
      {
        field: 'password',
        key: 'tooShort',
        min: 14,
      },
    );
    expect(passwordProblemFromError('400 Bad Request (password is too easy)')).toEqual({
      field: 'password',
      key: 'tooEasy',
    });
    expect(passwordProblemFromError('400 Bad Request (the current password is incorrect)')).toEqual({
      field: 'current',
      key: 'wrongCurrent',
    });
    expect(passwordProblemFromError('403 Forbidden')).toBeNull();
  });
});
