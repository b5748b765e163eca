import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { createSettingsRepository } from './repository.js';

describe('the signing key', () => {
  it('is stored once and never replaced: a later save keeps the key running instances hold', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'coffer-settings-repo-'));
    const db = await openDb(path.join(dir, 'db.sqlite'));
    try {
      const repo = createSettingsRepository(db);
      expect(await repo.isInitialised()).toBe(false);
      await repo.saveSigningKey(new Uint8Array(64).fill(1));
      await repo.saveSigningKey(new Uint8Array(64).fill(2));
      expect(await repo.signingKey()).toEqual(new Uint8Array(64).fill(1));
      expect(await repo.isInitialised()).toBe(true);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
