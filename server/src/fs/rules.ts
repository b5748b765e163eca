/**
 * Rule matching (docs/api.md §6.3, S3, S12). Rules apply to the canonical, scope-relative virtual
 * path; global rules first, then the user's; start allowed; every matching rule sets the result to
 * its `allow` — the last match wins.
 */
import type { Rule } from '@coffer/protocol';

/** The parts of a user that the checks read. */
export interface RuleSubject {
  rules: Rule[];
  hideDotfiles: boolean;
}

const compiled = new Map<string, RegExp | null>();

/**
 * Compiles a rule's RE2-style pattern to a JS RegExp (the common subset: a leading `(?i)` becomes
 * the `i` flag). Returns null for a pattern JS cannot compile. Cached: rules are few and reused.
 */
export function compileRuleRegex(raw: string): RegExp | null {
  let re = compiled.get(raw);
  if (re !== undefined) return re;
  let source = raw;
  let flags = 'u';
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1]!.includes('i')) flags += 'i';
    if (inline[1]!.includes('s')) flags += 's';
    if (inline[1]!.includes('m')) flags += 'm';
  }
  try {
    re = new RegExp(source, flags);
  } catch {
    try {
      re = new RegExp(source, flags.replace('u', ''));
    } catch {
      re = null;
    }
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(raw, re);
  return re;
}

/** Path rule: `p == path` or `p` starts with `path + "/"`; a rule path of `/` matches everything (S3). */
export function pathRuleMatches(rulePath: string, virtual: string): boolean {
  let rp = rulePath;
  if (rp.length > 1 && rp.endsWith('/')) rp = rp.slice(0, -1);
  if (rp === '/' || rp === '') return true;
  if (!rp.startsWith('/')) rp = '/' + rp;
  return virtual === rp || virtual.startsWith(rp + '/');
}

/**
 * Whether one rule matches. A regex rule whose pattern cannot be compiled fails closed: it
 * matches when it denies (so a broken deny rule still denies) and never matches when it allows.
 */
export function ruleMatches(rule: Rule, virtual: string): boolean {
  if (!rule.regex) return pathRuleMatches(rule.path, virtual);
  const raw = rule.regexp?.raw ?? '';
  const re = compileRuleRegex(raw);
  if (!re) return !rule.allow;
  re.lastIndex = 0;
  return re.test(virtual);
}

/** Rules only (global, then the user's): true when the last matching rule denies. */
export function rulesDeny(globalRules: readonly Rule[], userRules: readonly Rule[], virtual: string): boolean {
  let allowed = true;
  for (const r of globalRules) if (ruleMatches(r, virtual)) allowed = r.allow;
  for (const r of userRules) if (ruleMatches(r, virtual)) allowed = r.allow;
  return !allowed;
}

/** `hideDotfiles`: the last segment starts with "." (docs/api.md §6.4; files inside a dot-folder are not matched). */
export function isHiddenName(virtual: string): boolean {
  const name = virtual.slice(virtual.lastIndexOf('/') + 1);
  return name.startsWith('.');
}

/**
 * The "rules/hidden check" of docs/api.md §6.3, §6.4: rules (global then user) plus, when `hidden` is on (default),
 * the user's hideDotfiles. Copy/move/delete descendant walks pass `{ hidden: false }`.
 */
export function isDenied(
  user: RuleSubject,
  virtual: string,
  globalRules: readonly Rule[],
  opts: { hidden?: boolean } = {},
): boolean {
  if ((opts.hidden ?? true) && user.hideDotfiles && virtual !== '/' && isHiddenName(virtual)) return true;
  return rulesDeny(globalRules, user.rules, virtual);
}

/** True when any rule exists at all (docs/api.md §7.9: descendant checks only matter then). */
export function hasRules(user: RuleSubject, globalRules: readonly Rule[]): boolean {
  return user.rules.length > 0 || globalRules.length > 0;
}
