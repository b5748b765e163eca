import type { Rule } from '@coffer/protocol';
import { describe, expect, it } from 'vitest';
import { compileRuleRegex, isDenied, pathRuleMatches, rulesDeny } from './rules.js';

const p = (path: string, allow = false): Rule => ({ regex: false, allow, path, regexp: null });
const re = (raw: string, allow = false): Rule => ({ regex: true, allow, path: '', regexp: { raw } });
const user = (rules: Rule[] = [], hideDotfiles = false) => ({ rules, hideDotfiles });

describe('path rules (S3)', () => {
  it('match by whole segment', () => {
    expect(pathRuleMatches('/uploads', '/uploads')).toBe(true);
    expect(pathRuleMatches('/uploads', '/uploads/x/y')).toBe(true);
    expect(pathRuleMatches('/uploads', '/uploads_backup')).toBe(false);
    expect(pathRuleMatches('/uploads/', '/uploads/x')).toBe(true);
    expect(pathRuleMatches('uploads', '/uploads/x')).toBe(true);
    expect(pathRuleMatches('/', '/anything')).toBe(true);
    expect(pathRuleMatches('/a/b', '/a')).toBe(false);
  });
});

describe('regex rules', () => {
  it('search anywhere in the path, never case-folded implicitly', () => {
    expect(rulesDeny([re('\\.key$')], [], '/a/id.key')).toBe(true);
    expect(rulesDeny([re('\\.key$')], [], '/a/id.KEY')).toBe(false);
    expect(rulesDeny([re('(?i)\\.key$')], [], '/a/id.KEY')).toBe(true);
    expect(rulesDeny([re('secret')], [], '/x/my-secret-stuff/y')).toBe(true);
  });
  it('fail closed on a pattern JS cannot compile: a broken deny still denies, a broken allow never allows', () => {
    expect(compileRuleRegex('(?P<n>x')).toBeNull();
    expect(rulesDeny([re('(?P<n>x')], [], '/anything')).toBe(true);
    expect(rulesDeny([p('/')], [re('(?P<n>x', true)], '/anything')).toBe(true);
  });
});

describe('evaluation order', () => {
  it('starts allowed, global rules then user rules, last match wins', () => {
    expect(rulesDeny([], [], '/x')).toBe(false);
    expect(rulesDeny([p('/')], [p('/shared', true)], '/shared/a')).toBe(false);
    expect(rulesDeny([p('/')], [p('/shared', true)], '/other')).toBe(true);
    expect(rulesDeny([p('/shared', true)], [p('/')], '/shared/a')).toBe(true);
    expect(rulesDeny([p('/a'), p('/a/b', true), p('/a/b/c')], [], '/a/b/c/d')).toBe(true);
    expect(rulesDeny([p('/a'), p('/a/b', true), p('/a/b/c')], [], '/a/b/x')).toBe(false);
  });
  it('hides dotfiles by last segment only, when asked', () => {
    expect(isDenied(user([], true), '/.env', [])).toBe(true);
    expect(isDenied(user([], true), '/.git/config', [])).toBe(false);
    expect(isDenied(user([], true), '/.env', [], { hidden: false })).toBe(false);
    expect(isDenied(user([], false), '/.env', [])).toBe(false);
    expect(isDenied(user([], true), '/', [])).toBe(false);
  });
});
