import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord, webdavAddress } from './WebdavCard';

describe('shellWord', () => {
  it('leaves plain names and addresses as they are', () => {
    expect(shellWord('alice')).toBe('alice');
    expect(shellWord(webdavAddress('https://files.example', '/coffer'))).toBe('https://files.example/coffer/dav/');
  });

  it('a user name with shell syntax reaches the command as the same text, never run', () => {
    for (const name of ['a$(touch /tmp/x)', "o'brien", 'two words', 'x;id', '`id`', 'a\\b', '!!', '*']) {
      const out = execFileSync('/bin/sh', ['-c', `printf %s ${shellWord(name)}`], { encoding: 'utf8' });
      expect(out, name).toBe(name);
    }
  });
});
