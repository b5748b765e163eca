// The bench tree of small text files shared by bench/archive and bench/extract: `folders` × 100
// files of 200–4000 bytes of deterministic text.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do', 'eiusmod', 'tempor'];

/** Deterministic text of `n` bytes for file (d, f). */
function text(d, f, n) {
  let s = '';
  let x = (d * 7919 + f * 104729 + 1) >>> 0;
  while (s.length < n) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += WORDS[x % WORDS.length] + (x % 11 === 0 ? '\n' : ' ');
  }
  return s.slice(0, n);
}

export function makeTree(root, name, folders) {
  for (let d = 0; d < folders; d++) {
    const sub = path.join(root, name, `d${String(d).padStart(3, '0')}`);
    mkdirSync(sub, { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(path.join(sub, `f${String(f).padStart(3, '0')}.txt`), text(d, f, 200 + (((d * 100 + f) * 37) % 3800)));
  }
}
