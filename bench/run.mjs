// `npm run bench [-- name...]`: runs bench/<name>/run.mjs one after another (all when none named).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const names = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(here, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(here, d.name, 'run.mjs')))
      .map((d) => d.name);
let failed = 0;
for (const name of names) {
  console.log(`\n=== bench/${name} ===`);
  const r = spawnSync(process.execPath, [path.join(here, name, 'run.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
