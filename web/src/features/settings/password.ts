/**
 * The password form's checks (docs/client.md §2 "Profile settings", §5 "Password change") and the server's
 * refusals (docs/api.md §2.9, §3) turned into messages next to the right field.
 */

export type PasswordMatch = 'empty' | 'match' | 'mismatch';

/** What the confirm field shows: nothing until something is typed, then green or red. */
export function passwordMatch(password: string, confirm: string): PasswordMatch {
  if (confirm === '') return 'empty';
  return password === confirm ? 'match' : 'mismatch';
}

/** Length the way the server counts it: UTF-8 bytes (docs/api.md §2.9). */
export function passwordLength(password: string): number {
  return new TextEncoder().encode(password).length;
}

export type PasswordProblem =
  | { field: 'current'; key: 'currentRequired' | 'wrongCurrent' }
  | { field: 'password'; key: 'required' | 'tooEasy' }
  | { field: 'password'; key: 'tooShort'; min: number }
  | { field: 'confirm'; key: 'mismatch' };

/**
 * Why the form must not be sent, or null. Both fields non-empty and equal (docs/client.md §5); the minimum length
 * when it is known (admins can read it); the current password when the server asks for it.
 */
export function passwordFormProblem(input: {
  current: string;
  password: string;
  confirm: string;
  needsCurrent: boolean;
  minLength: number | null;
}): PasswordProblem | null {
  if (input.password === '') return { field: 'password', key: 'required' };
  if (input.minLength !== null && passwordLength(input.password) < input.minLength)
    return { field: 'password', key: 'tooShort', min: input.minLength };
  if (input.password !== input.confirm) return { field: 'confirm', key: 'mismatch' };
  if (input.needsCurrent && input.current === '') return { field: 'current', key: 'currentRequired' };
  return null;
}

/** A 400 from PUT /api/users/{id} read as a field problem; null when it is about something else. */
export function passwordProblemFromError(message: string): PasswordProblem | null {
  const short = /password is too short, minimum length is (\d+)/.exec(message);
  if (short) return { field: 'password', key: 'tooShort', min: Number(short[1]) };
  if (message.includes('password is too easy')) return { field: 'password', key: 'tooEasy' };
  if (message.includes('the current password is incorrect')) return { field: 'current', key: 'wrongCurrent' };
  return null;
}
