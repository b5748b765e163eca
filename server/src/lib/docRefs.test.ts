import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDocRefs as check } from '../../../scripts/check-doc-refs.mjs';

const repo = path.resolve(import.meta.dirname, '../../..');

describe('references to the documentation', () => {
  it('every rule id, § reference and docs/ path in code and tests resolves in docs/', () => {
    const { problems, refs } = check(repo);
    expect(problems).toEqual([]);
    // The code cites the docs hundreds of times: a scan that finds few did not look.
    expect(refs).toBeGreaterThan(500);
  });
});

describe('the checker', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'coffer-docrefs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  // Ids, section signs and document names are assembled at run time, so that this file itself
  // stays clean for the scan above.
  const S = (n: number) => `S${n}`;
  const E = (n: number) => `E${n}`;
  const sec = (n: string) => `\u00a7${n}`;
  const bare = ['api', 'md'].join('.');
  const nowhere = ['docs', 'nowhere.md'].join('/');

  function write(rel: string, text: string): void {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }

  write('docs/api.md', `# API\n## 1. Intro\n### 1.2 Bodies\n### ${S(1)} — one rule\n### ${E(2)} — one addition\n\`\`\`\n## 9. not a heading inside a fence\n\`\`\`\n`);

  it('accepts references that resolve', () => {
    write('server/src/a.ts', `// docs/api.md ${sec('1')}, ${sec('1.2')}–${sec('1')}, ${S(1)}, ${E(2)}; RFC 7232 ${sec('6')}\n`);
    expect(check(root).problems).toEqual([]);
  });

  it('reports each kind of dangling reference with its file and line', () => {
    write(
      'web/src/b.tsx',
      [
        `// ${S(9)} and ${E(7)}`,
        `// docs/api.md ${sec('2')}`,
        `// docs/api.md ${sec('9')}`,
        `// spec ${sec('3')}`,
        `// architecture.md ${sec('7')}`,
        `// see ${bare}`,
        `// see ${nowhere}`,
      ].join('\n'),
    );
    expect(check(root).problems).toEqual([
      `web/src/b.tsx:1: ${S(9)} is not a heading in docs/`,
      `web/src/b.tsx:1: ${E(7)} is not a heading in docs/`,
      `web/src/b.tsx:2: docs/api.md has no section 2`,
      `web/src/b.tsx:3: docs/api.md has no section 9`,
      `web/src/b.tsx:4: ${sec('3')} does not say which document (write docs/<page>.md ${sec('3')})`,
      `web/src/b.tsx:5: ${sec('7')} cites architecture.md, which is not a page under docs/`,
      `web/src/b.tsx:6: ${bare} is not in the repository (cite docs/api.md or docs/client.md)`,
      `web/src/b.tsx:7: ${nowhere} does not exist`,
    ]);
  });
});
