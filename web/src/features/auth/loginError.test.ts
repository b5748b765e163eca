import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/errors';
import { loginProblem } from './loginError';

describe('loginProblem', () => {
  it('reads 403 as wrong credentials', () => {
    expect(loginProblem(new ApiError(403, '403 Forbidden'), 'login')).toEqual({ kind: 'wrongCredentials' });
  });
  it('reads a 401 with X-Second-Factor as the ask for a code, and 403 at the code step as a wrong code', () => {
    expect(loginProblem(new ApiError(401, '401 Unauthorized', false, null, 'totp'), 'login')).toEqual({
      kind: 'secondFactor',
    });
    expect(loginProblem(new ApiError(401, '401 Unauthorized'), 'login')).toEqual({
      kind: 'other',
      message: '401 Unauthorized',
    });
    expect(loginProblem(new ApiError(403, '403 Forbidden'), 'code')).toEqual({ kind: 'wrongCode' });
  });
  it('reads 409 on signup as a taken username', () => {
    expect(loginProblem(new ApiError(409, '409 Conflict'), 'signup')).toEqual({ kind: 'usernameTaken' });
    expect(loginProblem(new ApiError(409, '409 Conflict'), 'login')).toEqual({
      kind: 'other',
      message: '409 Conflict',
    });
  });
  it('reads 429 with Retry-After as a wait (E6)', () => {
    expect(loginProblem(new ApiError(429, '', false, 42), 'login')).toEqual({
      kind: 'tooManyAttempts',
      seconds: 42,
    });
  });
  it('reads status 0 as no connection', () => {
    expect(loginProblem(new ApiError(0, '000 No connection'), 'login')).toEqual({ kind: 'connection' });
  });
  it("keeps the server's text for anything else", () => {
    expect(
      loginProblem(
        new ApiError(400, '400 Bad Request (password is too short, minimum length is 12)'),
        'signup',
      ),
    ).toEqual({
      kind: 'other',
      message: '400 Bad Request (password is too short, minimum length is 12)',
    });
  });
});
