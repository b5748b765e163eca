/** Sessions and app passwords as the API shows them (docs/api.md §2.10, §2.11): never a token, jti or digest. */
import type { AppPasswordInfo, SessionInfo } from '@coffer/protocol';
import Bowser from 'bowser';
import type { AppPassword } from '../../auth/app-passwords.js';
import type { SessionEntry } from '../../auth/tokens.js';

/** "Firefox 128", "Windows 10", "mobile" from a User-Agent; empty parts when it says nothing. */
export function describeUserAgent(userAgent: string): { browser: string; os: string; device: string } {
  if (!userAgent) return { browser: '', os: '', device: '' };
  const p = Bowser.parse(userAgent);
  const major = p.browser.version?.split('.')[0];
  const browser = p.browser.name ? [p.browser.name, major].filter(Boolean).join(' ') : '';
  const os = p.os.name ? [p.os.name, p.os.versionName ?? p.os.version].filter(Boolean).join(' ') : '';
  const device = ['desktop', 'mobile', 'tablet'].includes(p.platform.type ?? '') ? p.platform.type! : '';
  return { browser, os, device };
}

export function presentSession(s: SessionEntry, currentFamily: string): SessionInfo {
  return {
    id: s.family,
    current: s.family === currentFamily,
    ...describeUserAgent(s.userAgent),
    address: s.address,
    createdAt: s.createdAt,
    lastUsed: s.lastSeen,
    expiresAt: s.expiresAt,
  };
}

export function presentAppPassword(a: AppPassword): AppPasswordInfo {
  return {
    id: a.id,
    name: a.name,
    readOnly: a.readOnly,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    lastUsed: a.lastUsed,
    lastAddress: a.lastAddress,
  };
}
