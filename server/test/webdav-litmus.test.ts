/**
 * litmus, the WebDAV server test suite (Debian package `litmus`; scripts/system-deps.mjs), against
 * a real Coffer (issue 19: basic, copymove, props, locks and http pass with no failure). A suite
 * that fails prints litmus's own report.
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useServer } from './harness.js';

const LITMUS = '/usr/bin/litmus';

/** Runs litmus with the given suites; resolves with its exit code and output. */
function litmus(url: string, user: { username: string; password: string }, suites: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(LITMUS, [url, user.username, user.password], { env: { ...process.env, TESTS: suites } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** litmus's summary lines: `<- summary for `basic': of 16 tests run: 16 passed, 0 failed. 100.0%`. */
function failures(out: string): string[] {
  return out.split('\n').filter((l) => /\bFAIL\b/.test(l) || /summary for .*: [1-9]\d* failed/.test(l));
}

describe('litmus', () => {
  const srv = useServer();

  for (const suite of ['basic', 'copymove', 'props', 'locks', 'http']) {
    it(`passes the ${suite} suite`, { timeout: 120_000 }, async () => {
      const user = await srv.createUser({ scope: `/${suite}` });
      await mkdir(path.join(srv.root, suite), { recursive: true });
      const { code, out } = await litmus(`${srv.url}/dav/`, user, suite);
      expect(failures(out), out).toEqual([]);
      expect(code, out).toBe(0);
      expect(out).toMatch(new RegExp(`summary for \`${suite}'`));
    });
  }
});
