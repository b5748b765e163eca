/** TanStack Query keys, one place (docs/client.md §7). */
export const queryKeys = {
  usage: (path: string) => ['usage', path] as const,
  /** The disk-usage picture of a folder (docs/api.md §24.2). */
  folderUsage: (path: string) => ['folder-usage', path] as const,
  resource: (path: string) => ['resource', path] as const,
  shares: () => ['shares'] as const,
  publicShare: (hash: string, path: string) => ['public-share', hash, path] as const,
  uploadShare: (hash: string) => ['upload-share', hash] as const,
  users: () => ['users'] as const,
  /** Under `users`: invalidated with the users list. */
  quotas: () => ['users', 'quotas'] as const,
  /** Every listing and file, whatever the path. */
  resources: () => ['resource'] as const,
  settings: () => ['settings'] as const,
  indexProgress: () => ['index-progress'] as const,
  user: (id: number) => ['users', id] as const,
  sessions: () => ['sessions'] as const,
  confirmation: () => ['sessions', 'confirmation'] as const,
  appPasswords: () => ['app-passwords'] as const,
  passkeys: () => ['passkeys'] as const,
  secondFactor: () => ['second-factor'] as const,
  jobs: () => ['jobs'] as const,
  /** The trash: the caller's scope, or every scope's (`all`). */
  trash: (all: boolean) => ['trash', all] as const,
  trashes: () => ['trash'] as const,
};
