import { describe, expect, it } from 'vitest';
import { toClientConfig } from './client.js';
import { defaults } from './load.js';
import { defaultSettings } from '../features/settings/defaults.js';
import { defaultAuther } from '../features/settings/repository.js';

const KEYS = [
  'AuthMethod', 'BaseURL', 'CSS', 'Color', 'DisableExternal', 'DisableUsedPercentage', 'EnableExec', 'EnableThumbs',
  'EnableVideoThumbs', 'EnableWebDAV',
  'HideLoginButton', 'IssuesURL', 'LoginPage', 'LogoutPage', 'Name', 'NoAuth', 'ProjectURL', 'ReCaptcha', 'ResizePreview',
  'Signup', 'StaticURL', 'Theme', 'TrashDays', 'TusSettings', 'Version',
];
const opts = { version: '1.2.3', customCss: false };

describe('toClientConfig', () => {
  it('builds exactly the keys of docs/api.md §5.3, sorted, with the documented defaults', () => {
    const c = toClientConfig(defaults(), defaultSettings(), defaultAuther(), opts);
    expect(Object.keys(c)).toEqual(KEYS);
    expect(c).toEqual({
      AuthMethod: 'json', BaseURL: '', CSS: false, Color: '', DisableExternal: false, DisableUsedPercentage: false,
      EnableExec: false, EnableThumbs: true, EnableVideoThumbs: false, EnableWebDAV: true, HideLoginButton: true, IssuesURL: '', LoginPage: true, LogoutPage: '/login',
      Name: '', NoAuth: false, ProjectURL: '', ReCaptcha: false, ResizePreview: true, Signup: false, StaticURL: '/static', Theme: '',
      TrashDays: 30, TusSettings: { chunkSize: 10485760, retryCount: 5 }, Version: '1.2.3',
    });
  });

  it('maps the server switches and the base URL', () => {
    const cfg = { ...defaults(), baseURL: '/coffer', disableExec: false, disableThumbnails: true, disablePreviewResize: true };
    const c = toClientConfig(cfg, defaultSettings(), defaultAuther(), opts);
    expect(c).toMatchObject({ BaseURL: '/coffer', StaticURL: '/coffer/static', EnableExec: true, EnableThumbs: false, ResizePreview: false });
  });

  it('says videos have thumbnails only when ffmpeg was found and thumbnails are on', () => {
    expect(toClientConfig(defaults(), defaultSettings(), defaultAuther(), { ...opts, videoThumbs: true }).EnableVideoThumbs).toBe(true);
    expect(toClientConfig({ ...defaults(), disableWebdav: true }, defaultSettings(), defaultAuther(), opts).EnableWebDAV).toBe(false);
    const off = { ...defaults(), disableThumbnails: true };
    expect(toClientConfig(off, defaultSettings(), defaultAuther(), { ...opts, videoThumbs: true }).EnableVideoThumbs).toBe(false);
  });

  it('passes the project and issue tracker addresses through (empty by default: no link)', () => {
    const cfg = { ...defaults(), projectURL: 'https://example.org/coffer', issuesURL: 'https://example.org/coffer/issues' };
    expect(toClientConfig(cfg, defaultSettings(), defaultAuther(), opts)).toMatchObject({
      ProjectURL: 'https://example.org/coffer', IssuesURL: 'https://example.org/coffer/issues',
    });
  });

  it('maps branding, signup and tus from the stored settings', () => {
    const s = defaultSettings();
    s.signup = true;
    s.hideLoginButton = false;
    s.branding = { name: 'N', disableExternal: true, disableUsedPercentage: true, files: '/b', theme: 'dark', color: '#123456' };
    s.tus = { chunkSize: 5, retryCount: 2 };
    const c = toClientConfig(defaults(), s, defaultAuther(), { version: 'v', customCss: true });
    expect(c).toMatchObject({
      Signup: true, HideLoginButton: false, Name: 'N', DisableExternal: true, DisableUsedPercentage: true, Theme: 'dark',
      Color: '#123456', CSS: true, TusSettings: { chunkSize: 5, retryCount: 2 },
    });
  });

  it('reports CSS only when branding.files is set', () => {
    expect(toClientConfig(defaults(), defaultSettings(), defaultAuther(), { version: 'v', customCss: true }).CSS).toBe(false);
  });

  it('sets LoginPage and NoAuth per auth method', () => {
    const flags = (m: 'json' | 'proxy' | 'hook' | 'noauth') => {
      const c = toClientConfig(defaults(), defaultSettings(), defaultAuther(m), opts);
      return [c.AuthMethod, c.LoginPage, c.NoAuth];
    };
    expect(flags('json')).toEqual(['json', true, false]);
    expect(flags('hook')).toEqual(['hook', true, false]);
    expect(flags('proxy')).toEqual(['proxy', false, false]);
    expect(flags('noauth')).toEqual(['noauth', false, true]);
  });

  it('exposes reCAPTCHA host and key (never the secret) only for json auth with a reCAPTCHA config', () => {
    const withCaptcha = { ...defaultAuther('json'), recaptcha: { host: 'https://www.google.com', key: 'site-key', secret: 'shh' } };
    const c = toClientConfig(defaults(), defaultSettings(), withCaptcha, opts);
    expect(c).toMatchObject({ ReCaptcha: true, ReCaptchaHost: 'https://www.google.com', ReCaptchaKey: 'site-key' });
    expect(JSON.stringify(c)).not.toContain('shh');
    expect(Object.keys(c)).toEqual([...KEYS, 'ReCaptchaHost', 'ReCaptchaKey'].sort());

    const noSecret = { ...withCaptcha, recaptcha: { ...withCaptcha.recaptcha, secret: '' } };
    expect(toClientConfig(defaults(), defaultSettings(), noSecret, opts).ReCaptcha).toBe(false);

    const hook = { ...withCaptcha, method: 'hook' as const };
    const h = toClientConfig(defaults(), defaultSettings(), hook, opts);
    expect(h.ReCaptcha).toBe(false);
    expect(Object.keys(h)).toEqual(KEYS);
  });

  it('falls back to /login for an empty logout page', () => {
    expect(toClientConfig(defaults(), defaultSettings(), { ...defaultAuther(), logoutPage: '' }, opts).LogoutPage).toBe('/login');
    expect(toClientConfig(defaults(), defaultSettings(), { ...defaultAuther('proxy'), logoutPage: '/bye' }, opts).LogoutPage).toBe('/bye');
  });
});
