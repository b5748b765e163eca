import YAML from 'yaml';
import { parseDuration } from '../lib/duration.js';
import { parseRateLimits } from '../http/rate-limit.js';
import { OPTIONS, camel, envName, type OptionSpec, type ServerConfig } from './schema.js';

export type ExplicitConfig = Partial<ServerConfig>;

export interface LoadResult {
  /** Values given by flag, environment or config file (highest wins). */
  explicit: ExplicitConfig;
  errors: string[];
}

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
    case 'list': {
      if (Array.isArray(raw) && raw.every((x) => typeof x === 'string')) return { ok: true, value: raw.map((x) => x.trim()).filter(Boolean) };
      if (typeof raw === 'string') return { ok: true, value: raw.split(',').map((x) => x.trim()).filter(Boolean) };
      return fail('expected a comma-separated list');
    }
  }
}

export function parseConfigFile(name: string, text: string): Record<string, unknown> {
  const data: unknown = /\.json$/i.test(name) ? JSON.parse(text) : YAML.parse(text);
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
  if (explicit.imgProcessors !== undefined && (explicit.imgProcessors as number) < 1) errors.push('img-processors: must be at least 1');
  return { explicit: explicit as ExplicitConfig, errors };
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
