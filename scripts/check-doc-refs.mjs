// Checks that the references code and tests make to the documentation resolve inside docs/:
// - every rule id (`S12`) and addition id (`E5`) is the start of a heading in a docs/ page;
// - every `§N` reference names its document on the same line, before it (`docs/api.md §7.6`,
//   `docs/client.md §2 "File browser"`; several in a row share it: `docs/api.md §8–§10`), and that
//   document has a heading numbered N (`## 7. …`, `### 7.6 …`); `RFC 7232 §6` is left alone;
// - every `docs/<name>.md` mentioned exists, and the reference documents kept outside the
//   repository (the API contract, the client spec, the page contract: (api|spec|page-contract).md)
//   are never cited.
// Run: `node scripts/check-doc-refs.mjs` (exit 1 and one line per problem when something is off).
// The unit test server/src/lib/docRefs.test.ts runs it on the repository.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where code and tests live (relative to the repository root). */
export const SCANNED = ['server', 'web', 'packages', 'e2e', 'bench', 'scripts', 'README.md'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'artifacts', 'results', 'coverage', '.git']);
const TEXT = /\.(?:ts|tsx|mts|js|mjs|cjs|css|html|md|sh|ya?ml)$/;

const HEADING = /^#{1,6}\s+(.*)$/;
const NUMBERED = /^(\d+(?:\.\d+)*)\.?(?:\s|$)/;
const ID_HEADING = /^([SE]\d{1,3})\b/;
const ID = /(?<![%\w])([SE]\d{1,3})\b/g;
const SECTION = /§\s?(\d+(?:\.\d+)*)/g;
const QUALIFIER = /((?:[\w.-]+\/)*[\w.-]+\.md)\b|\bRFC\s?\d+/g;
const OUTSIDE_DOC = /(?<![\w/.-])(api|spec|page-contract)\.md\b/g;
const DOCS_PATH = /(?<![\w/.-])docs\/([\w./-]+?\.md)\b/g;

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const full = path.join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) walk(full, out);
    else if (TEXT.test(name)) out.push(full);
  }
}

/** The headings of every page under docs/: section numbers per page, and the ids of all pages. */
export function readDocs(root) {
  const pages = new Map();
  const ids = new Map();
  const files = [];
  walk(path.join(root, 'docs'), files);
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const sections = new Set();
    let fenced = false;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      const h = fenced ? null : HEADING.exec(line);
      if (!h) continue;
      const title = h[1].trim();
      const num = NUMBERED.exec(title);
      if (num) sections.add(num[1]);
      const id = ID_HEADING.exec(title);
      if (id && !ids.has(id[1])) ids.set(id[1], rel);
    }
    pages.set(rel, sections);
  }
  return { pages, ids };
}

/** The document a `§` at `at` in `line` refers to: the last qualifier before it on the line. */
function qualifierOf(line, at) {
  let found = null;
  for (const m of line.slice(0, at).matchAll(QUALIFIER)) found = m;
  if (!found) return { kind: 'none' };
  if (!found[1]) return { kind: 'external' };
  return { kind: 'doc', name: found[1] };
}

/**
 * Every problem as `file:line: message`, and how many references were checked. `root` is the
 * repository (or a folder shaped like it).
 */
export function checkDocRefs(root) {
  const { pages, ids } = readDocs(root);
  const files = [];
  for (const entry of SCANNED) {
    const full = path.join(root, entry);
    let st;
    try {
      st = statSync(full);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(full, files);
    else files.push(full);
  }
  const problems = [];
  let refs = 0;
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const where = `${rel}:${i + 1}`;
      for (const m of line.matchAll(ID)) {
        refs++;
        if (!ids.has(m[1])) problems.push(`${where}: ${m[1]} is not a heading in docs/`);
      }
      for (const m of line.matchAll(SECTION)) {
        refs++;
        const q = qualifierOf(line, m.index);
        if (q.kind === 'external') continue;
        if (q.kind === 'none') {
          problems.push(`${where}: §${m[1]} does not say which document (write docs/<page>.md §${m[1]})`);
          continue;
        }
        const page = q.name.startsWith('docs/') ? q.name : null;
        const sections = page ? pages.get(page) : undefined;
        if (!sections) problems.push(`${where}: §${m[1]} cites ${q.name}, which is not a page under docs/`);
        else if (!sections.has(m[1])) problems.push(`${where}: ${page} has no section ${m[1]}`);
      }
      for (const m of line.matchAll(OUTSIDE_DOC)) {
        refs++;
        problems.push(`${where}: ${m[0]} is not in the repository (cite docs/api.md or docs/client.md)`);
      }
      for (const m of line.matchAll(DOCS_PATH)) {
        refs++;
        if (!pages.has(`docs/${m[1]}`)) problems.push(`${where}: docs/${m[1]} does not exist`);
      }
    });
  }
  return { problems, refs };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const { problems, refs } = checkDocRefs(root);
  for (const p of problems) console.log(p);
  console.log(`${refs} references checked, ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exit(problems.length ? 1 : 0);
}
