/**
 * Passkeys (docs/api.md §2.13): the server's options go to the browser's WebAuthn through
 * @simplewebauthn/browser, and the browser's answer back to the server.
 */
import type { PasskeyInfo } from '@coffer/protocol';
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { request, requestJson } from './client';

export type { PasskeyInfo };
export { passkeysSupported } from './webauthnSupport';

export function listPasskeys(signal?: AbortSignal): Promise<PasskeyInfo[]> {
  return requestJson<PasskeyInfo[]>('/passkeys', { signal });
}

/** Options from the server, the browser makes the passkey, the server stores it under `name`. */
export async function addPasskey(name: string, currentPassword?: string): Promise<PasskeyInfo> {
  const optionsJSON = await requestJson<PublicKeyCredentialCreationOptionsJSON>('/passkeys/options', { method: 'POST' });
  const response = await startRegistration({ optionsJSON });
  return requestJson<PasskeyInfo>('/passkeys', {
    method: 'POST',
    json: { name, response, ...(currentPassword === undefined ? {} : { current_password: currentPassword }) },
  });
}

export async function removePasskey(id: number, currentPassword?: string): Promise<void> {
  await request(`/passkeys/${id}`, { method: 'DELETE', json: { current_password: currentPassword } });
}

/** A sign-in without a name: the browser offers the passkeys it has for this site. The token. */
export async function signInWithPasskey(): Promise<string> {
  const optionsJSON = await requestJson<PublicKeyCredentialRequestOptionsJSON>('/passkeys/login-options', {
    method: 'POST',
    token: false,
  });
  const response = await startAuthentication({ optionsJSON });
  const res = await request('/passkeys/login', { method: 'POST', json: { response }, token: false });
  return (await res.text()).trim();
}

/**
 * The second step after a right password, with one of the user's passkeys. The token. Under
 * reCAPTCHA the options take the captcha's answer; the final login does not ask for it again.
 */
export async function secondStepWithPasskey(username: string, password: string, recaptcha = ''): Promise<string> {
  const optionsJSON = await requestJson<PublicKeyCredentialRequestOptionsJSON>('/login/passkey-options', {
    method: 'POST',
    json: { username, password, recaptcha },
    token: false,
  });
  const passkey = await startAuthentication({ optionsJSON });
  const res = await request('/login', { method: 'POST', json: { username, password, passkey }, token: false });
  return (await res.text()).trim();
}
