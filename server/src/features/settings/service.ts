/**
 * PUT/GET /api/settings (docs/api.md §4, S39, S70): a full replacement of the editable fields, checked
 * completely before anything is stored.
 */
import { HOOK_KEYS, type AuthMethod, type Settings, type SettingsInput } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { canonicalPath } from '../../fs/canonical.js';
import { BadRequest, HttpError } from '../../http/errors.js';
import { assertWellFormedText } from '../../lib/json-text.js';
import { rulesError } from '../../lib/rules.js';
import { DEFAULT_WEBDAV, normaliseForSave, readBack, type StoredSettings } from './defaults.js';
import { presentSettings } from './present.js';
import type { SettingsRepository } from './repository.js';

const HOOK_KEY_SET: ReadonlySet<string> = new Set(HOOK_KEYS);

/**
 * A left-out top-level field reads as its zero value (docs/api.md §4.2), as File Browser's decoder does.
 * Coffer's `defaults.quota`, which File Browser's clients do not send, keeps `kept`'s value instead.
 */
export function fromInput(b: SettingsInput, kept?: Pick<StoredSettings, 'defaults'>): StoredSettings {
  const d = b.defaults;
  return {
    signup: b.signup ?? false,
    hideLoginButton: b.hideLoginButton ?? false,
    createUserDir: b.createUserDir ?? false,
    minimumPasswordLength: b.minimumPasswordLength ?? 0,
    userHomeBasePath: b.userHomeBasePath ?? '',
    defaults: {
      scope: d?.scope ?? '',
      locale: d?.locale ?? '',
      viewMode: d?.viewMode ?? '',
      singleClick: d?.singleClick ?? false,
      redirectAfterCopyMove: d?.redirectAfterCopyMove ?? false,
      sorting: d ? { by: d.sorting.by, asc: d.sorting.asc } : { by: '', asc: false },
      perm: d
        ? { ...d.perm }
        : { admin: false, execute: false, create: false, rename: false, modify: false, delete: false, share: false, download: false },
      commands: [...(d?.commands ?? [])],
      hideDotfiles: d?.hideDotfiles ?? false,
      dateFormat: d?.dateFormat ?? false,
      aceEditorTheme: d?.aceEditorTheme ?? '',
      quota: d?.quota ?? kept?.defaults.quota ?? 0,
    },
    rules: (b.rules ?? []).map((r) => ({ regex: r.regex, allow: r.allow, path: r.path, regexp: r.regexp ? { raw: r.regexp.raw } : null })),
    branding: b.branding ? { ...b.branding } : { name: '', disableExternal: false, disableUsedPercentage: false, files: '', theme: '', color: '' },
    tus: b.tus ? { chunkSize: b.tus.chunkSize, retryCount: b.tus.retryCount } : { chunkSize: 0, retryCount: 0 },
    shell: [...(b.shell ?? [])],
    commands: Object.fromEntries(Object.entries(b.commands ?? {}).map(([k, v]) => [k, [...(v ?? [])]])),
    // Not a zero value when left out: File Browser's clients do not know it, and a default-on
    // protection must not go off because an old script saved the settings.
    webdav: { refuseMacMetadata: b.webdav?.refuseMacMetadata ?? DEFAULT_WEBDAV.refuseMacMetadata },
  };
}

/** A virtual path setting (scope-like) must stay inside the server root (S9): 400 otherwise. */
function checkVirtual(name: string, value: string): void {
  try {
    canonicalPath(value.trim());
  } catch (err) {
    if (err instanceof HttpError) throw new BadRequest(`${name} ${err.status === 403 ? 'climbs above the server root' : 'is not a valid path'}`, { cause: err });
    throw err;
  }
}

/** Every check of PUT /api/settings; throws BadRequest before anything is stored. */
export function validateSettings(s: StoredSettings): void {
  const why = rulesError(s.rules);
  if (why) throw new BadRequest(`invalid rule: ${why}`);
  for (const key of Object.keys(s.commands)) {
    if (!HOOK_KEY_SET.has(key)) throw new BadRequest(`unknown event in commands: ${JSON.stringify(key).slice(0, 80)}`);
  }
  checkVirtual('userHomeBasePath', s.userHomeBasePath);
  checkVirtual('defaults.scope', s.defaults.scope);
}

/** JSON with object keys sorted: the order keys were stored in is not a change. */
function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val,
  );
}

export function createSettingsService(deps: { settings: SettingsRepository }) {
  return {
    async get(): Promise<Settings> {
      const [s, auther] = await Promise.all([deps.settings.settings(), deps.settings.auther()]);
      return presentSettings(s, auther.method as AuthMethod);
    },

    async replace(actor: { id: number; log: FastifyBaseLogger }, body: SettingsInput | undefined): Promise<void> {
      if (!body || typeof body !== 'object') throw new BadRequest('empty request');
      assertWellFormedText(body);
      const before = await deps.settings.settings();
      const next = normaliseForSave(fromInput(body, before));
      validateSettings(next);
      await deps.settings.saveSettings(next);
      const after = readBack(next);
      const changed = (Object.keys(after) as (keyof StoredSettings)[]).filter((k) => stableJson(after[k]) !== stableJson(before[k]));
      actor.log.info({ actor: actor.id, fields: changed }, 'settings updated');
      if (changed.includes('shell') && after.shell.length > 0) {
        // S71: a shell hands every line of users with `execute` to it.
        actor.log.warn({ actor: actor.id }, 'settings.shell is set: users with the execute permission can run anything through it');
      }
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
