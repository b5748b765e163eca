/** Sessions, app passwords and the second factor (docs/api.md §2.10-§2.12). */
import type {
  AppPasswordCreated,
  AppPasswordCreateRequest,
  AppPasswordInfo,
  RecoveryCodes,
  SecondFactorStatus,
  SessionInfo,
  SignInConfirmation,
  TotpEnrolment,
} from '@coffer/protocol';
import { request, requestJson } from './client';

export type { AppPasswordCreated, AppPasswordInfo, SecondFactorStatus, SessionInfo, SignInConfirmation, TotpEnrolment };

/** GET /api/sessions/confirmation: what confirms this session's changes to its sign-in (docs/api.md §2.11). */
export function getConfirmation(signal?: AbortSignal): Promise<SignInConfirmation> {
  return requestJson<SignInConfirmation>('/sessions/confirmation', { signal });
}

/** GET /api/sessions: the signed-in browsers and devices, most recently used first. */
export function listSessions(signal?: AbortSignal): Promise<SessionInfo[]> {
  return requestJson<SessionInfo[]>('/sessions', { signal });
}

/** DELETE /api/sessions/{id}: ends one session, every token of it. */
export async function endSession(id: string): Promise<void> {
  await request(`/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** DELETE /api/sessions: ends every session but this one. */
export async function endOtherSessions(): Promise<void> {
  await request('/sessions', { method: 'DELETE' });
}

export function listAppPasswords(signal?: AbortSignal): Promise<AppPasswordInfo[]> {
  return requestJson<AppPasswordInfo[]>('/app-passwords', { signal });
}

/** POST /api/app-passwords: the answer carries the secret, shown this once. */
export function createAppPassword(input: AppPasswordCreateRequest): Promise<AppPasswordCreated> {
  return requestJson<AppPasswordCreated>('/app-passwords', { method: 'POST', json: input });
}

export async function revokeAppPassword(id: number): Promise<void> {
  await request(`/app-passwords/${id}`, { method: 'DELETE' });
}

/** GET /api/second-factor (docs/api.md §2.12). */
export function getSecondFactor(signal?: AbortSignal): Promise<SecondFactorStatus> {
  return requestJson<SecondFactorStatus>('/second-factor', { signal });
}

/** POST /api/second-factor/totp: a new secret, not in force until confirmed. */
export function startTotp(): Promise<TotpEnrolment> {
  return requestJson<TotpEnrolment>('/second-factor/totp', { method: 'POST' });
}

/** POST /api/second-factor/totp/confirm: turns it on; the recovery codes, shown once. */
export async function confirmTotp(code: string, currentPassword?: string): Promise<string[]> {
  const json = { code, current_password: currentPassword };
  return (await requestJson<RecoveryCodes>('/second-factor/totp/confirm', { method: 'POST', json })).recoveryCodes;
}

export async function newRecoveryCodes(currentPassword: string): Promise<string[]> {
  const answer = await requestJson<RecoveryCodes>('/second-factor/recovery-codes', {
    method: 'POST',
    json: { current_password: currentPassword },
  });
  return answer.recoveryCodes;
}

export async function turnOffSecondFactor(currentPassword: string): Promise<void> {
  await request('/second-factor', { method: 'DELETE', json: { current_password: currentPassword } });
}
