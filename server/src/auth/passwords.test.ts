import { hash as bcryptHash } from '@node-rs/bcrypt';
import { describe, expect, it } from 'vitest';
import { importedUsers } from '../cli/users.js';
import { hashPassword, importedHashProblem, MAX_ARGON2, MAX_BCRYPT_COST, verifyPassword } from './passwords.js';

describe('importedHashProblem', () => {
  it("takes File Browser's bcrypt and Coffer's own argon2id", async () => {
    const bcrypt = await bcryptHash('pw', { cost: 4 });
    expect(importedHashProblem(bcrypt)).toBeNull();
    expect(importedHashProblem(await hashPassword('pw'))).toBeNull();
  });

  it('refuses costs that would hold a hashing slot or the memory at every sign-in attempt', async () => {
    const bcrypt = await bcryptHash('pw', { cost: 4 });
    const costly = bcrypt.replace('$04$', `$${MAX_BCRYPT_COST + 1}$`);
    expect(importedHashProblem(costly)).toBe(`the bcrypt cost ${MAX_BCRYPT_COST + 1} is outside 4–${MAX_BCRYPT_COST}`);
    const argon = await hashPassword('pw');
    const big = argon.replace(/m=\d+/, `m=${MAX_ARGON2.memoryKiB + 1}`);
    expect(importedHashProblem(big)).toMatch(/memory cost/);
    expect(importedHashProblem(argon.replace(/t=\d+/, 't=4000000000'))).toMatch(/time cost/);
    expect(importedHashProblem(argon.replace(/p=\d+/, 'p=255'))).toMatch(/parallelism/);
  });

  it('refuses clear text, truncated hashes and other types without echoing them', () => {
    for (const bad of ['plain-text-password', '$2a$10$short', '$argon2id$v=19$m=19456', '', 42, null]) {
      const why = importedHashProblem(bad);
      expect(why).not.toBeNull();
      if (typeof bad === 'string' && bad) expect(why).not.toContain(bad);
    }
  });

  it('an argon2 hash that passes still verifies', async () => {
    const h = await hashPassword('secret-pw');
    expect(importedHashProblem(h)).toBeNull();
    expect(await verifyPassword(h, 'secret-pw')).toBe(true);
  });
});

describe('coffer users import', () => {
  it('refuses a user whose hash is too costly, naming the user and the reason', async () => {
    const costly = (await bcryptHash('pw', { cost: 4 })).replace('$04$', '$31$');
    expect(() => importedUsers([{ username: 'eve', password: costly, scope: '/', perm: {} }])).toThrow(
      /user #1 \("eve"\): the bcrypt cost 31 is outside 4–14/,
    );
  });
});
