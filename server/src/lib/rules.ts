/**
 * S39: the regular-expression syntax a regex rule may use — the part that Go's RE2 (File Browser's
 * engine, docs/api.md §6) and JavaScript's RegExp with the `u` flag (how fs/rules.ts compiles rules)
 * both accept *and* read the same way. Anything outside it is refused when settings or users are
 * saved, never reinterpreted at match time.
 *
 * Accepted:
 * - literal characters (any Unicode text; `] } ` and the other metacharacters escaped);
 * - `.` `^` `$` `|`, groups `( )` and `(?: )`;
 * - quantifiers `* + ?` and `{n}` `{n,}` `{n,m}` (n, m ≤ 1000, nested counts multiplied ≤ 1000,
 *   as RE2 limits them), each optionally lazy (`*?`);
 * - escapes `\d \D \w \W \b \B \t \n \r \f \v`, `\xHH`, and `\` before one of `^ $ \ . * + ? ( ) [ ] { } | /`;
 * - classes `[...]` / `[^...]` of characters, ranges `a-z` and the escapes above (`-` first or last);
 * - inline flags `i`, `m`, `s` only as one leading group such as `(?i)` (fs/rules.ts turns it into
 *   RegExp flags).
 *
 * Refused (one side lacks it or reads it differently): lookahead/lookbehind `(?= (?! (?<= (?<!`,
 * named groups `(?<n> (?P<n>`, inline flags elsewhere or `(?i: )`, backreferences `\1 \k<n>`,
 * `\s \S` (Unicode spaces in JS, ASCII in RE2), `\A \z \Q…\E \pN \p{…} \uHHHH \x{…} \cX \0`,
 * POSIX classes `[[:alpha:]]`, an empty class `[]` or `[^]`, `[a-b-c]`, escapes of other
 * punctuation (`\#`, `\-` outside a class), a `{` that is not a quantifier, and quantifiers with
 * nothing to repeat.
 */
import { isWellFormedText } from './json-text.js';

export const MAX_RULE_PATTERN_LENGTH = 4096;
const MAX_REPEAT = 1000; // RE2's limit on counted repetition
const MAX_DEPTH = 100;

const SYNTAX_ESCAPES = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const CLASS_ESCAPES = new Set([...SYNTAX_ESCAPES, '-']);
const CLASS_LETTER_ESCAPES = new Set(['d', 'D', 'w', 'W']);
const CONTROL_ESCAPES = new Map([['t', 9], ['n', 10], ['r', 13], ['f', 12], ['v', 11]]);
const HEX2 = /^[0-9A-Fa-f]{2}$/;

class Refused extends Error {}

interface Frame {
  /** Largest product of counted repetitions inside this group so far. */
  innerMax: number;
}

/**
 * Returns why `raw` is outside the shared syntax, or null when it is accepted (and compiles with
 * the `u` flag).
 */
export function ruleRegexError(raw: string): string | null {
  if (raw.length > MAX_RULE_PATTERN_LENGTH) return `pattern is longer than ${MAX_RULE_PATTERN_LENGTH} characters`;
  if (!isWellFormedText(raw)) return 'pattern is not valid Unicode text';
  try {
    const flags = parse(raw);
    // Belt and braces: what we accept must compile the way fs/rules.ts compiles it.
    new RegExp(raw.slice(flags.prefixLength), 'u' + flags.flags);
    return null;
  } catch (err) {
    return err instanceof Refused ? err.message : `invalid pattern (${(err as Error).message})`;
  }
}

function parse(raw: string): { prefixLength: number; flags: string } {
  const chars = [...raw];
  let i = 0;
  let flags = '';
  const lead = /^\(\?([a-zA-Z]*)\)/.exec(raw);
  if (lead) {
    if (!/^[ims]+$/.test(lead[1]!)) throw new Refused(`only the flags i, m and s are allowed in a leading (?…) group`);
    flags = [...new Set(lead[1]!)].join('');
    i = [...lead[0]].length;
  }
  const prefixLength = lead ? lead[0].length : 0;

  const stack: Frame[] = [{ innerMax: 1 }];
  // What a quantifier right here would apply to: null = nothing repeatable.
  let repeatable: { product: number } | null = null;
  let lastWasQuantifier = false;

  const fail = (why: string): never => {
    throw new Refused(`${why} at position ${i + 1}`);
  };
  const top = () => stack[stack.length - 1]!;

  while (i < chars.length) {
    const c = chars[i]!;
    switch (c) {
      case '(': {
        if (chars[i + 1] === '?') {
          if (chars[i + 2] !== ':') fail(describeGroup(chars.slice(i, i + 4).join('')));
          i += 3;
        } else i += 1;
        if (stack.length > MAX_DEPTH) fail('groups are nested too deeply');
        stack.push({ innerMax: 1 });
        repeatable = null;
        lastWasQuantifier = false;
        continue;
      }
      case ')': {
        if (stack.length === 1) fail('unmatched )');
        const frame = stack.pop()!;
        top().innerMax = Math.max(top().innerMax, frame.innerMax);
        repeatable = { product: frame.innerMax };
        lastWasQuantifier = false;
        i += 1;
        continue;
      }
      case '|':
      case '^':
      case '$':
        repeatable = null;
        lastWasQuantifier = false;
        i += 1;
        continue;
      case '*':
      case '+':
      case '?':
      case '{': {
        let count = 0;
        let length = 1;
        if (c === '{') {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(i, i + 16).join(''));
          if (!m) fail('a { that does not start a {n,m} repetition (write \\{ for the character)');
          const min = Number(m![1]);
          const max = m![3] ? Number(m![3]) : min; // {n,} counts as n, like RE2
          if (min > MAX_REPEAT || max > MAX_REPEAT) fail(`repetition count above ${MAX_REPEAT}`);
          if (m![3] && max < min) fail('repetition {n,m} with m < n');
          count = Math.max(min, max);
          length = m![0].length;
        }
        if (lastWasQuantifier) fail('a repetition of a repetition');
        if (!repeatable) fail('a repetition with nothing to repeat');
        if (count > 0) {
          const product = count * repeatable!.product;
          if (product > MAX_REPEAT) fail(`nested repetition counts above ${MAX_REPEAT}`);
          top().innerMax = Math.max(top().innerMax, product);
        }
        i += length;
        if (chars[i] === '?') i += 1; // lazy
        lastWasQuantifier = true;
        continue;
      }
      case '}':
      case ']':
        fail(`an unescaped ${c} (write \\${c})`);
        break;
      case '[':
        i = parseClass(chars, i, fail);
        repeatable = { product: 1 };
        lastWasQuantifier = false;
        continue;
      case '\\': {
        const kind = escapeKind(chars, i, false, fail);
        repeatable = kind.assertion ? null : { product: 1 };
        lastWasQuantifier = false;
        i += kind.length;
        continue;
      }
      default:
        repeatable = { product: 1 };
        lastWasQuantifier = false;
        i += 1;
    }
  }
  if (stack.length !== 1) throw new Refused('missing )');
  return { prefixLength, flags };
}

function describeGroup(start: string): string {
  if (start.startsWith('(?=') || start.startsWith('(?!')) return 'lookahead is not supported';
  if (start.startsWith('(?<=') || start.startsWith('(?<!')) return 'lookbehind is not supported';
  if (start.startsWith('(?<') || start.startsWith('(?P')) return 'named groups are not supported';
  return 'only (?:…) groups and one leading flag group such as (?i) are supported';
}

/** One escape outside or inside a class; returns its length and whether it is an assertion. */
function escapeKind(chars: string[], i: number, inClass: boolean, fail: (why: string) => never): { length: number; assertion: boolean; classEscape: boolean } {
  const n = chars[i + 1];
  if (n === undefined) fail('a trailing \\');
  const e = n!;
  if ((inClass ? CLASS_ESCAPES : SYNTAX_ESCAPES).has(e)) return { length: 2, assertion: false, classEscape: false };
  if (CONTROL_ESCAPES.has(e)) return { length: 2, assertion: false, classEscape: false };
  if (CLASS_LETTER_ESCAPES.has(e)) return { length: 2, assertion: false, classEscape: true };
  if (e === 'b' || e === 'B') {
    if (inClass) fail(`\\${e} inside a class`);
    return { length: 2, assertion: true, classEscape: false };
  }
  if (e === 'x') {
    if (!HEX2.test(chars.slice(i + 2, i + 4).join(''))) fail('\\x must be followed by exactly two hex digits');
    return { length: 4, assertion: false, classEscape: false };
  }
  if (e === 's' || e === 'S') fail(`\\${e} is not supported (JavaScript and RE2 disagree on spaces; write [ \\t] or similar)`);
  if (/[0-9]/.test(e)) fail('backreferences and octal escapes are not supported');
  if (e === 'k') fail('backreferences are not supported');
  return fail(`the escape \\${e} is not supported`);
}

/** Parses `[...]` starting at `i`; returns the index after `]`. */
function parseClass(chars: string[], start: number, fail: (why: string) => never): number {
  let i = start + 1;
  if (chars[i] === '^') i += 1;
  const first = i;
  // Each item: a single character (may start or end a range) or a class escape (\d, \w…).
  let prev: { single: boolean; value: number } | null = null;
  let afterRange = false;
  while (true) {
    const c = chars[i];
    if (c === undefined) fail('missing ]');
    if (c === ']') {
      if (i === first) fail('an empty class [] or [^] (write \\] for the character)');
      return i + 1;
    }
    if (c === '[') {
      if (chars[i + 1] === ':') fail('POSIX classes such as [[:alpha:]] are not supported');
      fail('an unescaped [ inside a class (write \\[)');
    }
    if (c === '-' && i !== first && chars[i + 1] !== ']') {
      // A range: prev must be a single character, the next item too.
      if (!prev || !prev.single || afterRange) fail('a - inside a class that is not a range (put it first or last)');
      const next = readClassChar(chars, i + 1, fail);
      if (!next.single) fail('a class escape cannot end a range');
      if (next.value < prev!.value) fail('a range whose end is before its start');
      i = next.end;
      prev = null;
      afterRange = true;
      continue;
    }
    const item = readClassChar(chars, i, fail);
    prev = item;
    afterRange = false;
    i = item.end;
  }
}

function readClassChar(chars: string[], i: number, fail: (why: string) => never): { single: boolean; value: number; end: number } {
  const c = chars[i];
  if (c === undefined) fail('missing ]');
  if (c === '\\') {
    const k = escapeKind(chars, i, true, fail);
    if (k.classEscape) return { single: false, value: 0, end: i + k.length };
    const e = chars[i + 1]!;
    let value: number;
    if (e === 'x') value = parseInt(chars.slice(i + 2, i + 4).join(''), 16);
    else if (CONTROL_ESCAPES.has(e)) value = CONTROL_ESCAPES.get(e)!;
    else value = e.codePointAt(0)!;
    return { single: true, value, end: i + k.length };
  }
  return { single: true, value: c!.codePointAt(0)!, end: i + 1 };
}

/** The rules check of S39 for settings and users: the first problem, or null. */
export function rulesError(rules: readonly { regex: boolean; regexp?: { raw: string } | null }[]): string | null {
  for (const [n, rule] of rules.entries()) {
    if (!rule.regex) continue;
    if (!rule.regexp) return `rule ${n + 1}: a regex rule needs regexp.raw`;
    const why = ruleRegexError(rule.regexp.raw);
    if (why) return `rule ${n + 1}: ${why}`;
  }
  return null;
}
