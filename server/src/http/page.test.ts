import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { escapeHtml, isPagePath, pageCsp, scriptJson } from './page.js';

describe('scriptJson (S63)', () => {
  it('escapes what could end the script element or a JS line, and reads back unchanged', () => {
    const value = { s: `</script><!-- & ' " \u2028\u2029 ${'\\'} é` };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).not.toMatch(/[^\\]'/);
    const window: { v?: unknown } = {};
    vm.runInNewContext(`window.v = ${text};`, { window });
    expect(window.v).toEqual(value);
  });
});

describe('escapeHtml', () => {
  it('escapes the five markup characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});

describe('isPagePath', () => {
  it('is true for client routes under the base URL only', () => {
    expect(isPagePath('/', '')).toBe(true);
    expect(isPagePath('/files/a/b', '')).toBe(true);
    expect(isPagePath('/apix', '')).toBe(true);
    expect(isPagePath('/staticky', '')).toBe(true);
    for (const p of ['/api', '/api/', '/api/x', '/static', '/static/x', '/health', '/health/x']) expect(isPagePath(p, ''), p).toBe(false);
    expect(isPagePath('/coffer/', '/coffer')).toBe(true);
    expect(isPagePath('/coffer/files/x', '/coffer')).toBe(true);
    expect(isPagePath('/coffer/api/x', '/coffer')).toBe(false);
    expect(isPagePath('/files/x', '/coffer')).toBe(false);
    expect(isPagePath('/cofferx/files', '/coffer')).toBe(false);
  });
});

describe('pageCsp (S62)', () => {
  it('allows inline scripts only by nonce and adds a reCAPTCHA origin only when given', () => {
    const csp = pageCsp('abc', { host: '127.0.0.1:8080' });
    expect(csp).toContain("script-src 'self' 'nonce-abc';");
    expect(csp).toContain("connect-src 'self' ws://127.0.0.1:8080;");
    expect(csp).not.toContain('frame-src');
    const secure = pageCsp('abc', { host: 'files.example.com', secure: true, recaptchaOrigin: 'https://www.google.com' });
    expect(secure).toContain('wss://files.example.com');
    expect(secure).toMatch(/script-src 'self' 'nonce-abc' https:\/\/www\.google\.com/);
    expect(secure).toContain("frame-src 'self' https://www.google.com");
  });
  it('never copies a malformed Host header into the policy', () => {
    expect(pageCsp('n', { host: "evil; script-src *" })).not.toContain('evil');
  });
});
