/**
 * Whether this browser can use passkeys, without loading the WebAuthn library (api/passkeys.ts):
 * the login screen asks before anyone presses the button.
 */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}
