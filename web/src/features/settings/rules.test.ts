import { describe, expect, it } from 'vitest';
import {
  editableRules,
  moveRule,
  newRule,
  ruleIndexFromError,
  ruleProblem,
  ruleProblems,
  ruleText,
  withRuleRegex,
  withRuleText,
} from './rules';

describe('rules', () => {
  it('edits the path of a path rule and the pattern of a regex rule', () => {
    const path = withRuleText(newRule(), '/private');
    expect(path).toEqual({ allow: false, regex: false, path: '/private', regexp: { raw: '' } });
    const regex = withRuleText({ ...newRule(), regex: true }, '\\.key$');
    expect(regex.regexp).toEqual({ raw: '\\.key$' });
    expect(ruleText(regex)).toBe('\\.key$');
  });

  it('keeps the typed text when switching between path and regex', () => {
    const asRegex = withRuleRegex(withRuleText(newRule(), '/tmp'), true);
    expect(asRegex).toMatchObject({ regex: true, regexp: { raw: '/tmp' } });
    expect(withRuleRegex(withRuleText(asRegex, '^/t'), false)).toMatchObject({ regex: false, path: '^/t' });
  });

  it('gives path rules from scripts (regexp null) a {raw: ""} to send back', () => {
    expect(editableRules([{ allow: true, regex: false, path: '/a', regexp: null }])).toEqual([
      { allow: true, regex: false, path: '/a', regexp: { raw: '' } },
    ]);
    expect(editableRules(null)).toEqual([]);
  });

  it('moves a rule up and down and ignores moves past either end', () => {
    expect(moveRule(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveRule(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moveRule(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveRule(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('finds empty paths and patterns that do not compile', () => {
    expect(ruleProblem(withRuleText(newRule(), '  '))).toBe('emptyPath');
    expect(ruleProblem({ ...newRule(), regex: true, regexp: { raw: '(' } })).toBe('badRegex');
    expect(ruleProblem({ ...newRule(), regex: true, regexp: { raw: '(?i)\\.JPG$' } })).toBeNull();
    expect(ruleProblem(withRuleText(newRule(), '/ok'))).toBeNull();
    const problems = ruleProblems([withRuleText(newRule(), '/ok'), newRule()]);
    expect([...problems]).toEqual([[1, 'emptyPath']]);
  });

  it('reads which rule a server refusal names', () => {
    expect(ruleIndexFromError('400 Bad Request (invalid rule: rule 2: lookahead at position 1)')).toBe(1);
    expect(ruleIndexFromError('400 Bad Request')).toBeNull();
  });
});
