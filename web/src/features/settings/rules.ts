/**
 * Access rules as the rules editor edits them (docs/client.md §3 "Rule", §6; docs/api.md §6.3): one text
 * per rule — the path of a path rule, the pattern of a regex rule — in an ordered list where the
 * last matching rule wins.
 */
import type { Rule } from '@coffer/protocol';

/** A rule as it comes from the API: `regexp` may be null for path rules made by scripts. */
export type RuleLike = Pick<Rule, 'allow' | 'regex' | 'path'> & { regexp?: { raw: string } | null };

export type RuleProblem = 'emptyPath' | 'badRegex';

/** A new rule: deny, by path, empty (denying is what rules are mostly for). */
export function newRule(): Rule {
  return { allow: false, regex: false, path: '', regexp: { raw: '' } };
}

/** The one text the editor shows for a rule. */
export function ruleText(rule: RuleLike): string {
  return rule.regex ? (rule.regexp?.raw ?? '') : rule.path;
}

/** The rule with its text replaced; the other kind's text is left as it was. */
export function withRuleText(rule: Rule, text: string): Rule {
  return rule.regex ? { ...rule, regexp: { raw: text } } : { ...rule, path: text };
}

/** Switching between path and regex keeps what was typed. */
export function withRuleRegex(rule: Rule, regex: boolean): Rule {
  const text = ruleText(rule);
  return regex ? { ...rule, regex, regexp: { raw: text } } : { ...rule, regex, path: text };
}

/** Rules from the API, shaped for editing (and for sending back: path rules carry `{raw: ""}`). */
export function editableRules(rules: readonly RuleLike[] | null | undefined): Rule[] {
  return (rules ?? []).map((r) => ({
    allow: r.allow,
    regex: r.regex,
    path: r.path,
    regexp: { raw: r.regexp?.raw ?? '' },
  }));
}

/** Moves the rule at `index` by `delta` places; out-of-range moves change nothing. */
export function moveRule<T>(rules: readonly T[], index: number, delta: number): T[] {
  const to = index + delta;
  if (index < 0 || index >= rules.length || to < 0 || to >= rules.length) return [...rules];
  const next = [...rules];
  const [moved] = next.splice(index, 1);
  next.splice(to, 0, moved as T);
  return next;
}

/**
 * Compiles a pattern the way the server matches rules: JavaScript syntax with the `u` flag, an
 * optional leading `(?ims)` group read as flags. The server checks more (the part RE2 shares);
 * what it refuses comes back as a save error.
 */
function compiles(raw: string): boolean {
  const lead = /^\(\?([ims]+)\)/.exec(raw);
  try {
    new RegExp(lead ? raw.slice(lead[0].length) : raw, 'u' + (lead ? [...new Set(lead[1])].join('') : ''));
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with one rule, or null. */
export function ruleProblem(rule: RuleLike): RuleProblem | null {
  const text = ruleText(rule);
  if (text.trim() === '') return 'emptyPath';
  if (rule.regex && !compiles(text)) return 'badRegex';
  return null;
}

/** Problems by rule index; empty when every rule is fine. */
export function ruleProblems(rules: readonly RuleLike[]): Map<number, RuleProblem> {
  const out = new Map<number, RuleProblem>();
  rules.forEach((rule, i) => {
    const problem = ruleProblem(rule);
    if (problem) out.set(i, problem);
  });
  return out;
}

/**
 * The index of the rule a server refusal names ("invalid rule: rule 2: …", 1-based), or null.
 */
export function ruleIndexFromError(message: string): number | null {
  const m = /\brule (\d+):/.exec(message);
  return m ? Number(m[1]) - 1 : null;
}
