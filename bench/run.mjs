// `npm run bench [-- name... [--flag value...]]`: runs bench/<name>/run.mjs one after another (all
// when none named); everything from the first argument that starts with `-` goes to each of them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('-'));
const named = firstFlag < 0 ? args : args.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : args.slice(firstFlag);
const names = named.length
  ? named
  : readdirSync(here, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(here, d.name, 'run.mjs')))
      .map((d) => d.name);
let failed = 0;
for (const name of names) {
  console.log(`\n=== bench/${name} ===`);
  const r = spawnSync(process.execPath, [path.join(here, name, 'run.mjs'), ...flags], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
