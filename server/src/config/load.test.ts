import { describe, expect, it } from 'vitest';
import { loadConfig, normaliseBaseURL, resolveConfig } from './load.js';

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
