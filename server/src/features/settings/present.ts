import type { AuthMethod, Rule, Settings } from '@coffer/protocol';
import type { StoredSettings } from './defaults.js';

/**
 * The only place stored settings become API JSON (docs/api.md §4.1): an allow-list of fields in File
 * Browser's order, `authMethod` from the auther record; never the signing key nor any secret
 * (S14), whatever else the stored record holds.
 */
export function presentSettings(s: StoredSettings, authMethod: AuthMethod): Settings {
  const d = s.defaults;
  return {
    signup: s.signup,
    hideLoginButton: s.hideLoginButton,
    createUserDir: s.createUserDir,
    minimumPasswordLength: s.minimumPasswordLength,
    userHomeBasePath: s.userHomeBasePath,
    defaults: {
      scope: d.scope,
      locale: d.locale,
      viewMode: d.viewMode,
      singleClick: d.singleClick,
      redirectAfterCopyMove: d.redirectAfterCopyMove,
      sorting: { by: d.sorting.by, asc: d.sorting.asc },
      perm: {
        admin: d.perm.admin,
        execute: d.perm.execute,
        create: d.perm.create,
        rename: d.perm.rename,
        modify: d.perm.modify,
        delete: d.perm.delete,
        share: d.perm.share,
        download: d.perm.download,
      },
      commands: [...(d.commands ?? [])],
      hideDotfiles: d.hideDotfiles,
      dateFormat: d.dateFormat,
      aceEditorTheme: d.aceEditorTheme,
      quota: d.quota ?? 0,
    },
    authMethod,
    rules: (s.rules ?? []).map(presentRule),
    branding: {
      name: s.branding.name,
      disableExternal: s.branding.disableExternal,
      disableUsedPercentage: s.branding.disableUsedPercentage,
      files: s.branding.files,
      theme: s.branding.theme,
      color: s.branding.color,
    },
    tus: { chunkSize: s.tus.chunkSize, retryCount: s.tus.retryCount },
    shell: [...(s.shell ?? [])],
    // Sorted keys, as File Browser's encoder writes a map.
    commands: Object.fromEntries(Object.keys(s.commands ?? {}).sort().map((k) => [k, [...(s.commands[k] ?? [])]])),
    webdav: { refuseMacMetadata: s.webdav.refuseMacMetadata },
  };
}

function presentRule(r: Rule): Rule {
  return { regex: r.regex, allow: r.allow, path: r.path, regexp: r.regexp ? { raw: r.regexp.raw } : null };
}
