/**
 * No two client files have names that differ only by letter case (UserForm.tsx and userForm.ts):
 * on a case-insensitive disk they are one file, and in an import they are one typo apart.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = import.meta.dirname;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : [path.relative(SRC, path.join(dir, e.name))],
  );
}

/** The groups of names that are the same once lower-cased and with .tsx read as .ts. */
export function caseTwins(names: string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const key = name.toLowerCase().replace(/\.tsx$/, '.ts');
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  return [...groups.values()].filter((g) => g.length > 1);
}

it('finds names that differ only by case', () => {
  expect(caseTwins(['a/UserForm.tsx', 'a/userForm.ts', 'a/userDraft.ts', 'b/UserForm.tsx'])).toEqual([
    ['a/UserForm.tsx', 'a/userForm.ts'],
  ]);
});

it('no two files of web/src differ only by case', () => {
  expect(caseTwins(files(SRC))).toEqual([]);
});
