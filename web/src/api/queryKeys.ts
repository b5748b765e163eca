/** TanStack Query keys, one place (architecture.md §7). */
export const queryKeys = {
  usage: (path: string) => ['usage', path] as const,
  resource: (path: string) => ['resource', path] as const,
  shares: () => ['shares'] as const,
  publicShare: (hash: string, path: string) => ['public-share', hash, path] as const,
  users: () => ['users'] as const,
  /** Every listing and file, whatever the path. */
  resources: () => ['resource'] as const,
  settings: () => ['settings'] as const,
  user: (id: number) => ['users', id] as const,
};
