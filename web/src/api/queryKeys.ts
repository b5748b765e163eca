/** TanStack Query keys, one place (architecture.md §7). */
export const queryKeys = {
  usage: (path: string) => ['usage', path] as const,
  resource: (path: string) => ['resource', path] as const,
  shares: () => ['shares'] as const,
  users: () => ['users'] as const,
};
