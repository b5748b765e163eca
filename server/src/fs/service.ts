/**
 * `Deps.files`: the resolver with the server root and the current global rules filled in, so a
 * route writes `await files.resolve(req.user, req.params['*'], { mustExist: true })`.
 */
import type { Rule } from '@coffer/protocol';
import type { WriteIo } from './atomic.js';
import type { CanonicalPath } from './canonical.js';
import { isDenied } from './rules.js';
import path from 'node:path';
import { resolvePath, scopeRoot, serverRootReal, type Area, type ResolveOptions, type ResolveUser, type ScopedPath } from './resolve.js';

export interface FileServiceDeps {
  config: { root: string; disableTypeDetectionByHeader: boolean };
  /** Current settings `rules` (read per request: an admin may change them at any time). */
  globalRules: () => Promise<readonly Rule[]>;
}

export function createFileService(deps: FileServiceDeps) {
  return {
    serverRoot: deps.config.root,
    /** Replacement write calls (tests inject ENOSPC and the like); undefined = node:fs. */
    io: undefined as WriteIo | undefined,
    /** docs/api.md §7.4: header sniffing for the single-file answer (never in listings, S85). */
    typeDetectionByHeader: !deps.config.disableTypeDetectionByHeader,
    globalRules: deps.globalRules,
    /** Like resolvePath; `globalRules` may be passed when the caller already read them. */
    async resolve(
      user: ResolveUser,
      rawOrCanonical: string | CanonicalPath,
      opts: Partial<ResolveOptions> = {},
    ): Promise<ScopedPath> {
      const globalRules = opts.globalRules ?? (await deps.globalRules());
      return resolvePath(user, rawOrCanonical, { decode: false, ...opts, globalRules, serverRoot: deps.config.root });
    },
    async isDenied(user: ResolveUser, virtual: string, opts: { hidden?: boolean; globalRules?: readonly Rule[] } = {}) {
      return isDenied(user, virtual, opts.globalRules ?? (await deps.globalRules()), opts);
    },
    /**
     * A resource's place relative to the server root ("/" for the root itself): the same name
     * whichever user's scope it is reached from, for state kept about it (WebDAV properties and
     * locks). The entry itself, not a link's target: a ScopedPath, or a walk's entry below one.
     */
    async storageKey(p: Pick<ScopedPath, 'entry'>): Promise<string> {
      const rel = path.relative(await serverRootReal(deps.config.root), p.entry);
      return rel === '' ? '/' : '/' + rel.split(path.sep).join('/');
    },
    scopeRoot(user: ResolveUser): Promise<Area> {
      return scopeRoot(deps.config.root, user.scope);
    },
  };
}

export type FileService = ReturnType<typeof createFileService>;
