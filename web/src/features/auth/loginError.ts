/**
 * What the login screen says for a failed login or signup (docs/client.md §8 "Login and signup", E6). A
 * `null` message means "show the generic error prompt with the server's text".
 */
import { isApiError } from '../../api/errors';

export type LoginProblem =
  | { kind: 'wrongCredentials' }
  | { kind: 'secondFactor' }
  | { kind: 'wrongCode' }
  | { kind: 'usernameTaken' }
  | { kind: 'tooManyAttempts'; seconds: number }
  | { kind: 'connection' }
  | { kind: 'other'; message: string };

/** `mode` 'code': the second step, where a 403 means the code was wrong (docs/api.md §2.12). */
export function loginProblem(err: unknown, mode: 'login' | 'signup' | 'code'): LoginProblem {
  if (!isApiError(err)) return { kind: 'other', message: err instanceof Error ? err.message : String(err) };
  if (err.status === 0) return { kind: 'connection' };
  if (err.status === 401 && err.secondFactor) return { kind: 'secondFactor' };
  if (err.status === 403) return { kind: mode === 'code' ? 'wrongCode' : 'wrongCredentials' };
  if (err.status === 409 && mode === 'signup') return { kind: 'usernameTaken' };
  if (err.status === 429) return { kind: 'tooManyAttempts', seconds: Math.max(1, err.retryAfter ?? 1) };
  return { kind: 'other', message: err.message };
}
