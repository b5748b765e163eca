import { parse as parseToml } from 'smol-toml';
import YAML from 'yaml';
import { parseDuration } from '../lib/duration.js';
import { parseRateLimits } from '../http/rate-limit.js';
import { parseWorkers } from '../cluster/budget.js';
import { OPTIONS, camel, envName, type OptionSpec, type ServerConfig } from './schema.js';

export type ExplicitConfig = Partial<ServerConfig>;

export interface LoadResult {
  /** Values given by flag, environment or config file (highest wins). */
  explicit: ExplicitConfig;
  errors: string[];
  /** What was given but is not honoured (File Browser habits Coffer does not share), for a warning at start. */
  warnings: string[];
}

/**
 * File Browser's serve options (its flags, `FB_<FLAG>` variables and `.filebrowser.*` keys). Each
 * has a Coffer option of the same name and meaning; `password` is File Browser's bcrypt hash, which
 * the first run stores as it is (services.ts).
 */
export const FILEBROWSER_OPTIONS: ReadonlySet<string> = new Set([
  'address', 'log', 'port', 'cert', 'key', 'root', 'socket', 'socket-perm', 'baseurl', 'cache-dir',
  'token-expiration-time', 'img-processors', 'disable-thumbnails', 'disable-preview-resize',
  'disable-exec', 'disable-type-detection-by-header', 'database', 'noauth', 'username', 'password',
]);

/** `FB_TOKEN_EXPIRATION_TIME` for `token-expiration-time`, as File Browser names its variables. */
export function fbEnvName(flag: string): string {
  return 'FB_' + flag.replace(/-/g, '_').toUpperCase();
}

/** File Browser's config file names, searched in ./, $HOME and /etc/filebrowser when no -c is given. */
export const FILEBROWSER_CONFIG_NAMES = ['.filebrowser.json', '.filebrowser.toml', '.filebrowser.yaml', '.filebrowser.yml'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

function parseBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (s === 'true' || s === '1' || s === 'yes' || s === '') return true;
  if (s === 'false' || s === '0' || s === 'no') return false;
  return undefined;
}

/** Converts one raw value (string from flag/env, any JSON/YAML value from a file) for an option. */
export function convert(spec: OptionSpec, raw: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const fail = (why: string) => ({ ok: false as const, error: `${spec.flag}: ${why} (got ${JSON.stringify(raw)})` });
  switch (spec.kind) {
    case 'string':
      if (typeof raw === 'string') return { ok: true, value: raw };
      if (typeof raw === 'number') return { ok: true, value: String(raw) };
      return fail('expected text');
    case 'boolean': {
      const b = parseBool(raw);
      return b === undefined ? fail('expected true or false') : { ok: true, value: b };
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < 0) return fail('expected a whole number');
      return { ok: true, value: n };
    }
    case 'duration': {
      const d = typeof raw === 'number' ? raw : typeof raw === 'string' ? parseDuration(raw) : null;
      if (d === null || !Number.isFinite(d) || d < 0) return fail('expected a duration such as 2h, 30m or 90s');
      return { ok: true, value: d };
    }
    case 'url': {
      if (typeof raw !== 'string') return fail('expected an http:// or https:// address');
      const text = raw.trim();
      if (text === '') return { ok: true, value: '' };
      let url: URL | null = null;
      try {
        url = new URL(text);
      } catch {
        url = null;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fail('expected an http:// or https:// address');
      return { ok: true, value: text };
    }
    case 'list': {
      if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return { ok: true, value: raw.map((x) => x.trim()).filter(Boolean) };
      if (typeof raw === 'string') return { ok: true, value: raw.split(',').map((x) => x.trim()).filter(Boolean) };
      return fail('expected a comma-separated list');
    }
  }
}

export function parseConfigFile(name: string, text: string): Record<string, unknown> {
  const data: unknown = /\.json$/i.test(name) ? JSON.parse(text) : /\.toml$/i.test(name) ? parseToml(text) : YAML.parse(text);
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new Error('the config file must hold an object');
  return data as Record<string, unknown>;
}

/**
 * flags > environment > config file. Pure: the caller reads argv, env and the file.
 * `flags` is keyed by option key (as the CLI parser produced it), values still raw.
 */
export function loadConfig(
  flags: Record<string, unknown>,
  env: Record<string, string | undefined>,
  file: { name: string; text: string } | null,
): LoadResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  let fileValues: Record<string, unknown> = {};
  if (file) {
    try {
      fileValues = parseConfigFile(file.name, file.text);
    } catch (err) {
      errors.push(`config file ${file.name}: ${(err as Error).message}`);
    }
  }
  const explicit: Record<string, unknown> = {};
  for (const spec of OPTIONS) {
    const envValue = env[envName(spec.flag)] ?? (spec.key === 'username' ? env.COFFER_ADMIN_USERNAME : spec.key === 'password' ? env.COFFER_ADMIN_PASSWORD : undefined);
    const candidates: [string, unknown][] = [
      [`--${spec.flag}`, flags[spec.key]],
      [envName(spec.flag), envValue],
      [fbEnvName(spec.flag), FILEBROWSER_OPTIONS.has(spec.flag) ? env[fbEnvName(spec.flag)] : undefined],
      [`config file key ${spec.key}`, fileValues[spec.key] ?? fileValues[spec.flag] ?? fileValues[camel(spec.flag)]],
    ];
    const found = candidates.find(([, v]) => v !== undefined);
    if (!found) continue;
    const res = convert(spec, found[1]);
    if (res.ok) explicit[spec.key] = res.value;
    else errors.push(`${found[0]}: ${res.error}`);
  }
  if (typeof explicit.rateLimit === 'string') {
    try {
      parseRateLimits(explicit.rateLimit);
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  if (typeof explicit.redisUrl === 'string' && explicit.redisUrl !== '' && !/^rediss?:\/\/[^\s]+$/.test(explicit.redisUrl)) {
    errors.push('redis-url: must be a redis:// or rediss:// address');
  }
  if (typeof explicit.workers === 'string' && parseWorkers(explicit.workers) === null) errors.push('workers: expected a number from 1 to 64, or auto');
  if (explicit.imgProcessors !== undefined && (explicit.imgProcessors as number) < 1) errors.push('img-processors: must be at least 1');
  const known = new Set(OPTIONS.flatMap((o) => [o.key, o.flag, camel(o.flag)]));
  const strayKeys = Object.keys(fileValues).filter((k) => !known.has(k));
  if (file && strayKeys.length) warnings.push(`config file ${file.name}: not Coffer settings, ignored: ${strayKeys.join(', ')}`);
  const fbKnown = new Set(OPTIONS.filter((o) => FILEBROWSER_OPTIONS.has(o.flag)).map((o) => fbEnvName(o.flag)));
  const strayEnv = Object.keys(env).filter((k) => k.startsWith('FB_') && env[k] !== undefined && !fbKnown.has(k));
  if (strayEnv.length) warnings.push(`File Browser variables Coffer does not honour, ignored: ${strayEnv.sort().join(', ')}`);
  return { explicit: explicit as ExplicitConfig, errors, warnings };
}

/** The defaults of every option. */
export function defaults(): ServerConfig {
  const out: Record<string, unknown> = {};
  for (const spec of OPTIONS) out[spec.key] = structuredClone(spec.default);
  return out as unknown as ServerConfig;
}

/** explicit > stored > default; normalises the base URL and checks combinations. */
export function resolveConfig(explicit: ExplicitConfig, stored: Partial<ServerConfig>): ServerConfig {
  const cfg = { ...defaults(), ...stored, ...explicit } as ServerConfig;
  cfg.baseURL = normaliseBaseURL(cfg.baseURL);
  const problems: string[] = [];
  if (cfg.socket && (explicit.cert || explicit.key)) problems.push('--socket cannot be combined with --cert/--key');
  if (Boolean(cfg.cert) !== Boolean(cfg.key)) problems.push('--cert and --key go together');
  if (cfg.port > 65535) problems.push('--port must be at most 65535');
  if (!['none', 'admins', 'all'].includes(cfg.requireSecondFactor)) problems.push('--require-second-factor must be none, admins or all');
  if (cfg.tokenExpirationTime <= 0) cfg.tokenExpirationTime = defaults().tokenExpirationTime;
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(cfg);
}

export function normaliseBaseURL(raw: string): string {
  let s = raw.trim();
  if (s === '' || s === '/') return '';
  if (!s.startsWith('/')) s = '/' + s;
  return s.replace(/\/+$/, '');
}
