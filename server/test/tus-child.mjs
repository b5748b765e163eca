// Starts tus-child-main.ts through Vite's module runner (TypeScript without a build step).
// Config: JSON in COFFER_CHILD_CONFIG. A SIGXFSZ handler turns a file-size limit (ulimit -f)
// into EFBIG write errors: the "disk full" tests use that.
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

process.on('SIGXFSZ', () => {});
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const { module } = await runnerImport(here('./tus-child-main.ts'), {
  configFile: false,
  logLevel: 'error',
  resolve: { alias: { '@coffer/protocol': here('../../packages/protocol/src/index.ts') } },
});
await module.main(JSON.parse(process.env.COFFER_CHILD_CONFIG ?? '{}'));
