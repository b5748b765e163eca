import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./packages/protocol/src/', import.meta.url));
// `@coffer/protocol` and its one-file entries (`@coffer/protocol/oidc-checks`) from the sources.
const protocol = [
  { find: /^@coffer\/protocol$/, replacement: `${src}index.ts` },
  { find: /^@coffer\/protocol\/([a-z-]+)$/, replacement: `${src}$1.ts` },
];

export default defineConfig({
  resolve: { alias: protocol },
  test: {
    projects: [
      {
        resolve: { alias: protocol },
        test: { name: 'unit', include: ['server/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'], environment: 'node' },
      },
      {
        resolve: { alias: protocol },
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
