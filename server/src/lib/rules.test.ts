import { describe, expect, it } from 'vitest';
import { compileRuleRegex } from '../fs/rules.js';
import { MAX_RULE_PATTERN_LENGTH, ruleRegexError, rulesError } from './rules.js';

describe('ruleRegexError (S39: the syntax RE2 and JavaScript share)', () => {
  const accepted = [
    '',
    '\\.key$',
    '^/private(/|$)',
    '/secret',
    'a|b|',
    '(?:ab)+c*?d??e+?',
    'x{3}',
    'x{2,}',
    'x{2,5}?',
    '(ab){10}(cd){0,100}',
    '[a-z0-9_]',
    '[^a-z]',
    '[-a]',
    '[a-]',
    '[a-z-]',
    '[\\d\\w.]',
    '[\\]\\[\\\\\\-\\^]',
    '[$^.|?*+(){}]',
    '\\d+\\D\\w\\W\\bx\\B',
    '\\t\\n\\r\\f\\v',
    '\\x41[\\x00-\\x7f]',
    '\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/',
    '(?i)readme',
    '(?ms)^a.b$',
    'ünïcödé/😀+',
    '[😀-😎]',
    '()',
    '((((a))))',
  ];
  for (const pattern of accepted) {
    it(`accepts ${JSON.stringify(pattern)} and fs/rules.ts compiles it`, () => {
      expect(ruleRegexError(pattern)).toBeNull();
      expect(compileRuleRegex(pattern)).toBeInstanceOf(RegExp);
    });
  }

  const refused: [string, RegExp][] = [
    ['a(?=b)', /lookahead/],
    ['a(?!b)', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(?<name>a)', /named groups/],
    ['(?P<name>a)', /named groups/],
    ['a(?i)b', /leading flag group/],
    ['(?i:a)', /leading flag group/],
    ['(?U)a', /flags i, m and s/],
    ['(?x)a', /flags i, m and s/],
    ['(?)a', /flags i, m and s/],
    ['(a)\\1', /backreferences/],
    ['(?:a)\\k<x>', /backreferences/],
    ['\\0', /octal/],
    ['a\\sb', /\\s is not supported/],
    ['\\S', /\\S is not supported/],
    ['\\Aabc\\z', /escape \\A/],
    ['\\Qa.b\\E', /escape \\Q/],
    ['\\pL', /escape \\p/],
    ['\\p{Greek}', /escape \\p/],
    ['\\u0041', /escape \\u/],
    ['\\x{41}', /two hex digits/],
    ['\\x4', /two hex digits/],
    ['\\cA', /escape \\c/],
    ['\\#', /escape \\#/],
    ['\\-', /escape \\-/],
    ['a\\', /trailing/],
    ['[[:alpha:]]', /POSIX/],
    ['[a[b]', /unescaped \[/],
    ['[]a]', /empty class/],
    ['[^]', /empty class/],
    ['[a-b-c]', /not a range/],
    ['[\\d-z]', /not a range/],
    ['[a-\\d]', /cannot end a range/],
    ['[z-a]', /end is before/],
    ['[\\b]', /inside a class/],
    ['[abc', /missing \]/],
    ['a{', /does not start/],
    ['a{x}', /does not start/],
    ['a{,3}', /does not start/],
    ['a}', /unescaped \}/],
    ['a]', /unescaped \]/],
    ['a{1001}', /above 1000/],
    ['a{2,1}', /m < n/],
    ['(a{100}){100}', /nested repetition/],
    ['*a', /nothing to repeat/],
    ['a|*', /nothing to repeat/],
    ['(*)', /nothing to repeat/],
    ['^*', /nothing to repeat/],
    ['\\b+', /nothing to repeat/],
    ['a**', /repetition of a repetition/],
    ['a*+', /repetition of a repetition/],
    ['a{2}{3}', /repetition of a repetition/],
    ['(a', /missing \)/],
    ['a)', /unmatched \)/],
  ];
  for (const [pattern, why] of refused) {
    it(`refuses ${JSON.stringify(pattern)}`, () => {
      expect(ruleRegexError(pattern)).toMatch(why);
    });
  }

  it('refuses ill-formed Unicode text and overlong patterns', () => {
    expect(ruleRegexError('a\ud800')).toMatch(/Unicode/);
    expect(ruleRegexError('a'.repeat(MAX_RULE_PATTERN_LENGTH + 1))).toMatch(/longer/);
    expect(ruleRegexError('a'.repeat(MAX_RULE_PATTERN_LENGTH))).toBeNull();
  });

  it('refuses groups nested deeper than 100', () => {
    expect(ruleRegexError('('.repeat(101) + ')'.repeat(101))).toMatch(/nested too deeply/);
    expect(ruleRegexError('('.repeat(50) + ')'.repeat(50))).toBeNull();
  });

  it('keeps the meaning of accepted patterns when compiled as fs/rules.ts does', () => {
    const re = compileRuleRegex('\\.key$')!;
    expect(re.test('/a/server.key')).toBe(true);
    expect(re.test('/a/serverkey')).toBe(false);
    expect(compileRuleRegex('(?i)readme')!.test('/README.md')).toBe(true);
    expect(compileRuleRegex('[😀-😎]')!.test('/😃')).toBe(true);
  });
});

describe('rulesError', () => {
  it('names the first bad regex rule and ignores path rules', () => {
    expect(rulesError([{ regex: false, regexp: null }, { regex: true, regexp: { raw: 'ok' } }])).toBeNull();
    expect(rulesError([{ regex: false, regexp: { raw: '(?<=x)' } }, { regex: true, regexp: { raw: '(?=x)' } }])).toMatch(/^rule 2: lookahead/);
    expect(rulesError([{ regex: true, regexp: null }])).toMatch(/^rule 1: a regex rule needs regexp.raw/);
    expect(rulesError([{ regex: true }])).toMatch(/needs regexp.raw/);
  });
});
