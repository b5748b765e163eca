/** `coffer config init|cat|set|export|import` (docs/configuration.md, `coffer config set`): global settings without the web UI. */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import YAML from 'yaml';
import type { AuthMethod } from '@coffer/protocol';
import type { ServerConfig } from '../config/schema.js';
import { defaultSettings, normaliseForSave, type StoredSettings } from '../features/settings/defaults.js';
import { defaultAuther, defaultOidc, type AutherConfig, type OidcConfig } from '../features/settings/repository.js';
import { validateSettings } from '../features/settings/service.js';
import { convert } from '../config/load.js';
import {
  addFlags,
  addServerFlags,
  applyFlags,
  applyServerFlags,
  SERVER_OPTIONS,
  SETTINGS_FLAGS,
  USER_FLAGS,
  type ConfigTarget,
  type UserFields,
} from './flags.js';
import { CliError, UsageError, withCommon, withDb, type CliContext, type CommonOptions } from './context.js';

export const DEFAULT_RECAPTCHA_HOST = 'https://www.google.com'; // docs/configuration.md (--recaptcha.host)

const AUTH_METHODS: readonly AuthMethod[] = ['json', 'proxy', 'hook', 'noauth', 'oidc'];

export interface ExportedConfig {
  settings: StoredSettings & { authMethod: AuthMethod };
  server: Partial<ServerConfig>;
  auther: AutherConfig;
}

/** The whole configuration; `mask` hides the reCAPTCHA secret (for printing). */
export async function readConfig(ctx: Pick<CliContext, 'settings'>, mask: boolean): Promise<ExportedConfig> {
  const [settings, auther, server] = await Promise.all([ctx.settings.settings(), ctx.settings.auther(), ctx.settings.server()]);
  let shown: AutherConfig = mask && auther.recaptcha?.secret ? { ...auther, recaptcha: { ...auther.recaptcha, secret: '********' } } : auther;
  if (mask && shown.oidc?.clientSecret) shown = { ...shown, oidc: { ...shown.oidc, clientSecret: '********' } };
  return { settings: { ...settings, authMethod: auther.method }, server, auther: shown };
}

function printConfig(ctx: CliContext, cfg: ExportedConfig): void {
  ctx.out(JSON.stringify(cfg, null, 2));
}

function isHttpUrl(text: string): URL | null {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

/** docs/api.md §2.13: what the oidc method cannot run without. */
export function oidcProblems(o: OidcConfig | null): string[] {
  if (!o) return ['--auth.method oidc needs --oidc.issuer, --oidc.client-id, --oidc.client-secret and --oidc.redirect-url'];
  const problems: string[] = [];
  if (!isHttpUrl(o.issuer)) problems.push('--oidc.issuer must be an http(s) URL');
  if (!o.clientId) problems.push('--auth.method oidc needs --oidc.client-id');
  if (!o.clientSecret) problems.push('--auth.method oidc needs --oidc.client-secret');
  const cb = isHttpUrl(o.redirectUrl);
  if (!cb || !cb.pathname.endsWith('/api/oidc/callback') || cb.search || cb.hash || cb.username || cb.password) {
    problems.push('--oidc.redirect-url must be this server\'s http(s) URL ending in /api/oidc/callback');
  }
  if (!o.scopes.split(' ').includes('openid')) problems.push('--oidc.scopes must include openid');
  if (!o.usernameClaim) problems.push('--oidc.username-claim must not be empty');
  if (Boolean(o.adminClaim) !== Boolean(o.adminValue)) problems.push('--oidc.admin-claim and --oidc.admin-value go together');
  return problems;
}

/** Checks an auther as a whole: the method's own configuration must be complete. */
export function autherProblems(a: AutherConfig): string[] {
  const problems: string[] = [];
  if (!AUTH_METHODS.includes(a.method)) problems.push(`auth method must be one of ${AUTH_METHODS.join(', ')}`);
  if (a.method === 'proxy' && !a.header.trim()) problems.push('--auth.method proxy needs --auth.header');
  if (a.method === 'hook' && !a.command.trim()) problems.push('--auth.method hook needs --auth.command');
  if (a.method === 'oidc') problems.push(...oidcProblems(a.oidc));
  if (a.recaptcha && a.recaptcha.host && !isHttpUrl(a.recaptcha.host)) problems.push('--recaptcha.host must be an http(s) URL');
  return problems;
}

/** Applies the config init/set flags to the current configuration; throws UsageError with every problem. */
function applyConfigFlags(
  opts: Record<string, unknown>,
  current: { settings: StoredSettings; auther: AutherConfig; server: Partial<ServerConfig> },
): { settings: StoredSettings; auther: AutherConfig; server: Partial<ServerConfig>; given: string[] } {
  const problems: string[] = [];
  const target: ConfigTarget = {
    settings: structuredClone(current.settings),
    auther: structuredClone(current.auther),
    recaptcha: {},
    server: { ...current.server },
  };
  const given = [
    ...applyFlags(SETTINGS_FLAGS, opts, target, problems),
    ...applyFlags(USER_FLAGS, opts, target.settings.defaults as UserFields, problems),
    ...applyServerFlags(opts, target.server, problems),
  ];
  // As PUT /api/settings/oidc (docs/api.md §2.14): the stored client secret stays only with the
  // issuer it was stored for, so another issuer without --oidc.client-secret drops it.
  const o = target.auther.oidc;
  if (o && o.issuer !== current.auther.oidc?.issuer && !given.includes('oidc.client-secret')) o.clientSecret = '';
  const r = target.recaptcha;
  if (r.host !== undefined || r.key !== undefined || r.secret !== undefined) {
    const before = target.auther.recaptcha;
    const next = { host: r.host ?? before?.host ?? DEFAULT_RECAPTCHA_HOST, key: r.key ?? before?.key ?? '', secret: r.secret ?? before?.secret ?? '' };
    target.auther.recaptcha = next.key || next.secret ? next : null;
  }
  problems.push(...autherProblems(target.auther));
  const settings = normaliseForSave(target.settings);
  if (!problems.length) {
    try {
      validateSettings(settings);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length) throw new UsageError(problems);
  return { settings, auther: target.auther, server: target.server, given };
}

async function save(ctx: CliContext, c: { settings: StoredSettings; auther: AutherConfig; server: Partial<ServerConfig> }): Promise<void> {
  await ctx.settings.saveSettings(c.settings);
  await ctx.settings.saveAuther(c.auther);
  await ctx.settings.saveServer(c.server);
}

function configFlags(cmd: Command): Command {
  addFlags(cmd, SETTINGS_FLAGS);
  addFlags(cmd, USER_FLAGS.map((f) => ({ ...f, description: `new users' default: ${f.description}` })));
  return addServerFlags(cmd);
}

// ---- import / export ----------------------------------------------------------------------

function parseFile(name: string, text: string): unknown {
  return /\.json$/i.test(name) ? JSON.parse(text) : YAML.parse(text);
}

export function serialise(name: string, value: unknown): string {
  return /\.ya?ml$/i.test(name) ? YAML.stringify(value) : JSON.stringify(value, null, 2) + '\n';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A `{settings, server, auther}` file as written by `config export` (missing fields: defaults). */
export function importedConfig(data: unknown): { settings: StoredSettings; auther: AutherConfig; server: Partial<ServerConfig> } {
  const problems: string[] = [];
  if (!isObject(data)) throw new UsageError(['the file must hold an object with settings, server and auther']);
  const s = isObject(data.settings) ? data.settings : {};
  const base = defaultSettings();
  const settings = normaliseForSave({
    ...base,
    ...(s as Partial<StoredSettings>),
    defaults: { ...base.defaults, ...(isObject(s.defaults) ? (s.defaults as object) : {}) },
    branding: { ...base.branding, ...(isObject(s.branding) ? (s.branding as object) : {}) },
    tus: { ...base.tus, ...(isObject(s.tus) ? (s.tus as object) : {}) },
  } as StoredSettings);
  delete (settings as Partial<ExportedConfig['settings']>).authMethod;
  const a = isObject(data.auther) ? data.auther : {};
  const method = (a.method ?? s.authMethod ?? 'json') as AuthMethod;
  const auther: AutherConfig = { ...defaultAuther(method), ...(a as Partial<AutherConfig>), method };
  auther.oidc = isObject(a.oidc) ? { ...defaultOidc(), ...(a.oidc as Partial<OidcConfig>) } : null;
  problems.push(...autherProblems(auther));
  const server: Partial<ServerConfig> = {};
  const srv = isObject(data.server) ? data.server : {};
  for (const spec of SERVER_OPTIONS) {
    const raw = srv[spec.key] ?? srv[spec.flag];
    if (raw === undefined) continue;
    const res = convert(spec, raw);
    if (res.ok) (server as Record<string, unknown>)[spec.key] = res.value;
    else problems.push(`server.${res.error}`);
  }
  try {
    validateSettings(settings);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (problems.length) throw new UsageError(problems);
  return { settings, auther, server };
}

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('global settings, server settings and the auth method, stored in the database');

  configFlags(withCommon(config.command('init')))
    .description('create a new database with these settings (fails when it is already initialised); add users with "coffer users add"')
    .action(async (opts: CommonOptions & Record<string, unknown>) => {
      // Every flag is checked before the database is touched.
      const c = applyConfigFlags(opts, { settings: defaultSettings(), auther: defaultAuther('json'), server: {} });
      await withDb(
        opts,
        async (ctx) => {
          if (await ctx.settings.isInitialised()) throw new CliError('the database is already initialised; use "coffer config set"');
          await save(ctx, c);
          await ctx.settings.saveSigningKey(randomBytes(64)); // marks the database as initialised
          printConfig(ctx, await readConfig(ctx, true));
        },
        { create: true },
      );
    });

  configFlags(withCommon(config.command('set')))
    .description('change only the settings given, then print the configuration (a running server reads settings at once, server settings at its next start)')
    .action(async (opts: CommonOptions & Record<string, unknown>) => {
      await withDb(opts, async (ctx) => {
        const current = { settings: await ctx.settings.settings(), auther: await ctx.settings.auther(), server: await ctx.settings.server() };
        const c = applyConfigFlags(opts, current);
        await save(ctx, c);
        printConfig(ctx, await readConfig(ctx, true));
      });
    });

  withCommon(config.command('cat'))
    .description('print the settings, the stored server settings and the auth configuration (the reCAPTCHA secret masked)')
    .action(async (opts: CommonOptions) => {
      await withDb(opts, async (ctx) => printConfig(ctx, await readConfig(ctx, true)));
    });

  withCommon(config.command('export <file>'))
    .description('write {settings, server, auther} to a .json or .yaml file (mode 0600: it holds the reCAPTCHA secret)')
    .action(async (file: string, opts: CommonOptions) => {
      await withDb(opts, async (ctx) => {
        await writeFile(file, serialise(file, await readConfig(ctx, false)), { mode: 0o600 });
        ctx.out(`configuration written to ${file}`);
      });
    });

  withCommon(config.command('import <file>'))
    .description('replace all settings from a file written by "config export"; the signing key is kept (a new database gets a fresh one)')
    .action(async (file: string, opts: CommonOptions) => {
      let data: unknown;
      try {
        data = parseFile(file, await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError([`${file}: ${(err as Error).message}`]);
      }
      const c = importedConfig(data);
      await withDb(
        opts,
        async (ctx) => {
          await save(ctx, c);
          if (!(await ctx.settings.isInitialised())) await ctx.settings.saveSigningKey(randomBytes(64));
          printConfig(ctx, await readConfig(ctx, true));
        },
        { create: true },
      );
    });
}
