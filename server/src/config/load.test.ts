import { describe, expect, it } from 'vitest';
import { loadConfig, normaliseBaseURL, resolveConfig } from './load.js';

describe('loadConfig with File Browser habits', () => {
  it('honours FB_* variables of File Browser\'s serve options, below COFFER_* and flags', () => {
    const env = { FB_PORT: '9000', FB_BASEURL: '/files', FB_TOKEN_EXPIRATION_TIME: '8h', FB_DISABLE_EXEC: 'false', FB_ROOT: '/fb', COFFER_ROOT: '/coffer' };
    const r = loadConfig({ baseURL: '/flag' }, env, null);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.explicit).toMatchObject({ port: 9000, baseURL: '/flag', tokenExpirationTime: 8 * 3600, disableExec: false, root: '/coffer' });
  });
  it('names every FB_* variable it does not honour in a warning, and ignores it', () => {
    const r = loadConfig({}, { FB_SEAFILE_RPC_PATH: '/x', FB_METRICS_TOKEN: 'secret', FB_PORT: '81' }, null);
    expect(r.explicit.metricsToken).toBeUndefined();
    expect(r.explicit.port).toBe(81);
    expect(r.warnings).toEqual(['File Browser variables Coffer does not honour, ignored: FB_METRICS_TOKEN, FB_SEAFILE_RPC_PATH']);
  });
  it('reads .filebrowser.toml, .yaml and .json with File Browser\'s keys; other keys are named in a warning', () => {
    const toml = loadConfig({}, {}, { name: '/etc/filebrowser/.filebrowser.toml', text: 'port = 8081\nbaseurl = "/fb"\n"token-expiration-time" = "1h"\nroot = "/srv"\nseafile = "x"\n' });
    expect(toml.errors).toEqual([]);
    expect(toml.explicit).toMatchObject({ port: 8081, baseURL: '/fb', tokenExpirationTime: 3600, root: '/srv' });
    expect(toml.warnings).toEqual(['config file /etc/filebrowser/.filebrowser.toml: not Coffer settings, ignored: seafile']);
    const yaml = loadConfig({}, {}, { name: '.filebrowser.yml', text: 'address: 0.0.0.0\ndisable-thumbnails: true\n' });
    expect(yaml.explicit).toMatchObject({ address: '0.0.0.0', disableThumbnails: true });
    const json = loadConfig({}, {}, { name: '.filebrowser.json', text: '{"port": "8082", "database": "/db/filebrowser.db", "cache-dir": "/tmp/c"}' });
    expect(json.explicit).toMatchObject({ port: 8082, database: '/db/filebrowser.db', cacheDir: '/tmp/c' });
    expect(json.warnings).toEqual([]);
  });
  it('reports a broken TOML file like any other', () => {
    expect(loadConfig({}, {}, { name: '.filebrowser.toml', text: 'port = = 1' }).errors[0]).toMatch(/config file \.filebrowser\.toml/);
  });
});

describe('loadConfig', () => {
  it('takes flags over env over the config file', () => {
    const file = { name: 'c.yaml', text: 'port: 7000\nroot: /from-file\naddress: 0.0.0.0\n' };
    const r = loadConfig({ port: '9000' }, { COFFER_PORT: '8000', COFFER_ROOT: '/from-env' }, file);
    expect(r.errors).toEqual([]);
    expect(r.explicit.port).toBe(9000);
    expect(r.explicit.root).toBe('/from-env');
    expect(r.explicit.address).toBe('0.0.0.0');
  });
  it('reads JSON config files with dashed or camelCase keys', () => {
    const r = loadConfig({}, {}, { name: 'c.json', text: '{"token-expiration-time":"30m","disableExec":false}' });
    expect(r.explicit.tokenExpirationTime).toBe(1800);
    expect(r.explicit.disableExec).toBe(false);
  });
  it('accepts true/false/1/0 for booleans from the environment', () => {
    expect(loadConfig({}, { COFFER_DISABLE_EXEC: '0' }, null).explicit.disableExec).toBe(false);
    expect(loadConfig({}, { COFFER_DISABLE_EXEC: 'true' }, null).explicit.disableExec).toBe(true);
  });
  it('reports every problem at once', () => {
    const r = loadConfig({ port: 'eighty' }, { COFFER_DISABLE_EXEC: 'maybe', COFFER_TOKEN_EXPIRATION_TIME: 'soon' }, null);
    expect(r.errors).toHaveLength(3);
  });
  it('reads the first admin from COFFER_ADMIN_USERNAME and COFFER_ADMIN_PASSWORD', () => {
    const r = loadConfig({}, { COFFER_ADMIN_USERNAME: 'root', COFFER_ADMIN_PASSWORD: 'pw-long-enough' }, null);
    expect(r.explicit.username).toBe('root');
    expect(r.explicit.password).toBe('pw-long-enough');
  });
  it('takes the project and issue tracker addresses as http(s) URLs only, empty by default', () => {
    const r = loadConfig(
      { projectURL: 'https://example.org/coffer' },
      { COFFER_ISSUES_URL: 'http://tracker.example/new' },
      null,
    );
    expect(r.errors).toEqual([]);
    expect(r.explicit).toMatchObject({ projectURL: 'https://example.org/coffer', issuesURL: 'http://tracker.example/new' });
    expect(resolveConfig({}, {})).toMatchObject({ projectURL: '', issuesURL: '' });
    expect(loadConfig({}, { COFFER_PROJECT_URL: '' }, null).explicit.projectURL).toBe('');
    const bad = loadConfig({ projectURL: 'javascript:alert(1)' }, { COFFER_ISSUES_URL: 'example.org/issues' }, null);
    expect(bad.errors).toEqual([
      '--project-url: project-url: expected an http:// or https:// address (got "javascript:alert(1)")',
      'COFFER_ISSUES_URL: issues-url: expected an http:// or https:// address (got "example.org/issues")',
    ]);
  });
  it('refuses a broken config file', () => {
    expect(loadConfig({}, {}, { name: 'c.json', text: '{' }).errors[0]).toMatch(/config file/);
  });
});

describe('resolveConfig', () => {
  it('puts stored settings between explicit values and defaults', () => {
    const cfg = resolveConfig({ port: 1 }, { port: 2, address: '0.0.0.0' });
    expect(cfg.port).toBe(1);
    expect(cfg.address).toBe('0.0.0.0');
    expect(cfg.root).toBe('.');
  });
  it('normalises the base URL', () => {
    expect(normaliseBaseURL('/coffer/')).toBe('/coffer');
    expect(normaliseBaseURL('coffer')).toBe('/coffer');
    expect(normaliseBaseURL('/')).toBe('');
  });
  it('refuses cert without key', () => {
    expect(() => resolveConfig({ cert: 'a.pem' }, {})).toThrow(/go together/);
  });
});
