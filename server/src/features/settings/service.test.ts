import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HOOK_KEYS } from '@coffer/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../db/index.js';
import { defaultSettings, normaliseForSave } from './defaults.js';
import { createSettingsRepository, defaultAuther } from './repository.js';
import { createSettingsService, fromInput, validateSettings } from './service.js';

describe('fromInput (docs/api.md §4.2: a left-out field is its zero value)', () => {
  it('gives zero values for an empty body', () => {
    const s = fromInput({});
    expect(s).toMatchObject({ signup: false, hideLoginButton: false, minimumPasswordLength: 0, userHomeBasePath: '', rules: [], shell: [], commands: {} });
    expect(s.tus).toEqual({ chunkSize: 0, retryCount: 0 });
    expect(Object.values(s.defaults.perm).every((v) => v === false)).toBe(true);
    const saved = normaliseForSave(s);
    expect(saved.defaults).toMatchObject({ locale: 'en', viewMode: 'mosaic' });
    expect(Object.keys(saved.commands).sort()).toEqual([...HOOK_KEYS].sort());
  });
  it('turns null lists into [] and keeps rule order', () => {
    const s = fromInput({
      rules: [
        { regex: false, allow: false, path: '/b' },
        { regex: true, allow: true, path: '', regexp: { raw: 'a' } },
      ],
      shell: null,
      commands: { before_save: null },
    });
    expect(s.rules).toEqual([
      { regex: false, allow: false, path: '/b', regexp: null },
      { regex: true, allow: true, path: '', regexp: { raw: 'a' } },
    ]);
    expect(s.shell).toEqual([]);
    expect(s.commands).toEqual({ before_save: [] });
  });
});

describe('validateSettings', () => {
  it('accepts the defaults', () => {
    expect(() => validateSettings(defaultSettings())).not.toThrow();
  });
  it('refuses bad regexes, unknown events and paths above the root with 400', () => {
    const cases = [
      { ...defaultSettings(), rules: [{ regex: true, allow: false, path: '', regexp: { raw: '(?<=a)' } }] },
      { ...defaultSettings(), commands: { ...defaultSettings().commands, on_login: [] } },
      { ...defaultSettings(), userHomeBasePath: '../x' },
      { ...defaultSettings(), defaults: { ...defaultSettings().defaults, scope: '/a/../..' } },
      { ...defaultSettings(), userHomeBasePath: 'a\u0001b' },
    ];
    for (const c of cases) expect(() => validateSettings(c)).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('settings log lines (E8)', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'coffer-settings-unit-'));
    db = await openDb(path.join(dir, 'db.sqlite'));
    const repo = createSettingsRepository(db);
    await repo.saveSettings(defaultSettings());
    await repo.saveAuther(defaultAuther('json'));
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('logs the names of the fields that changed, and warns when a shell is set (S71)', async () => {
    const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
    const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void lines.push({ level, obj, msg });
    const log = { info: at('info'), warn: at('warn') } as unknown as FastifyBaseLogger;
    const settings = createSettingsService({ settings: createSettingsRepository(db) });
    const current = await settings.get();
    await settings.replace({ id: 7, log }, { ...current });
    expect(lines).toEqual([{ level: 'info', msg: 'settings updated', obj: { actor: 7, fields: [] } }]);
    lines.length = 0;
    await settings.replace({ id: 7, log }, { ...current, signup: true, shell: ['sh', '-c'] });
    expect(lines[0]).toEqual({ level: 'info', msg: 'settings updated', obj: { actor: 7, fields: ['signup', 'shell'] } });
    expect(lines[1]).toMatchObject({ level: 'warn' });
  });
});
