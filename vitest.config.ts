import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const protocol = fileURLToPath(new URL('./packages/protocol/src/index.ts', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@coffer/protocol': protocol } },
  test: {
    projects: [
      {
        resolve: { alias: { '@coffer/protocol': protocol } },
        test: { name: 'unit', include: ['server/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'], environment: 'node' },
      },
      {
        resolve: { alias: { '@coffer/protocol': protocol } },
        test: {
          name: 'integration',
          include: ['server/test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 30_000,
          pool: 'forks',
        },
      },
    ],
  },
});
