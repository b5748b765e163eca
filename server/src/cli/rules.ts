/** `coffer rules ls|add|rm` (global, or one user's with -u/-i) and `coffer cmds ls|add|rm` (event hooks). */
import { Option, type Command } from 'commander';
import { EVENT_NAMES, HOOK_KEYS, type Rule } from '@coffer/protocol';
import { rulesError } from '../lib/rules.js';
import { CliError, table, UsageError, withCommon, withDb, type CliContext, type CommonOptions } from './context.js';
import { findUser } from './users.js';

interface RuleOwner {
  username?: string;
  id?: string;
}

function withOwner(cmd: Command): Command {
  return withCommon(cmd)
    .addOption(new Option('-u, --username <name>', "a user's rules instead of the global ones"))
    .addOption(new Option('-i, --id <id>', "a user's rules, by user id"));
}

/** Reads and writes the rule list the command is about. */
async function ruleList(ctx: CliContext, owner: RuleOwner): Promise<{ rules: Rule[]; save(rules: Rule[]): Promise<void>; label: string }> {
  if (owner.username !== undefined && owner.id !== undefined) throw new UsageError(['give --username or --id, not both']);
  const ref = owner.id ?? owner.username;
  if (ref !== undefined) {
    if (owner.id !== undefined && !/^\d+$/.test(owner.id)) throw new UsageError([`--id: expected a number (got ${JSON.stringify(owner.id)})`]);
    const user = await findUser(ctx, ref);
    return {
      rules: user.rules,
      label: `rules of ${user.username}`,
      save: async (rules) => ctx.users.update({ ...(await ctx.users.byId(user.id))!, rules }),
    };
  }
  const settings = await ctx.settings.settings();
  return { rules: settings.rules, label: 'global rules', save: async (rules) => ctx.settings.saveSettings({ ...(await ctx.settings.settings()), rules }) };
}

function rulesTable(rules: Rule[]): string {
  if (!rules.length) return '(no rules)';
  return table(
    ['#', 'Kind', 'Type', 'Path or pattern'],
    rules.map((r, i) => [i, r.allow ? 'allow' : 'deny', r.regex ? 'regex' : 'path', r.regex ? (r.regexp?.raw ?? '') : r.path]),
  );
}

/** `<index> [index_end]` → an inclusive range inside a list of `length` items. */
export function parseRange(first: string, last: string | undefined, length: number): [number, number] {
  const nums = [first, last ?? first].map((v) => (/^\d+$/.test(v) ? Number(v) : NaN));
  const [a, b] = nums as [number, number];
  if (Number.isNaN(a) || Number.isNaN(b)) throw new UsageError([`indexes must be whole numbers (got ${[first, last].filter(Boolean).join(' ')})`]);
  if (b < a) throw new UsageError(['the end index is below the start index']);
  if (b >= length) throw new CliError(`no item ${b} (there are ${length})`);
  return [a, b];
}

export function registerRulesCommands(program: Command): void {
  const rules = program.command('rules').description('access rules: global, or per user with -u/-i');

  withOwner(rules.command('ls'))
    .description('list rules with their index')
    .action(async (opts: CommonOptions & RuleOwner) => {
      await withDb(opts, async (ctx) => {
        const list = await ruleList(ctx, opts);
        ctx.out(`${list.label}:\n${rulesTable(list.rules)}`);
      });
    });

  withOwner(rules.command('add <path|regex>'))
    .description('append a rule: deny unless --allow; a path prefix unless --regex (RE2/JavaScript common syntax)')
    .addOption(new Option('-a, --allow', 'allow instead of deny'))
    .addOption(new Option('-r, --regex', 'the argument is a regular expression'))
    .action(async (expr: string, opts: CommonOptions & RuleOwner & { allow?: boolean; regex?: boolean }) => {
      const regex = Boolean(opts.regex);
      const rule: Rule = { regex, allow: Boolean(opts.allow), path: regex ? '' : expr, regexp: regex ? { raw: expr } : null };
      if (!expr) throw new UsageError(['the rule needs a path or a pattern']);
      const why = rulesError([rule]);
      if (why) throw new UsageError([`invalid rule: ${why}`]);
      await withDb(opts, async (ctx) => {
        const list = await ruleList(ctx, opts);
        const next = [...list.rules, rule];
        await list.save(next);
        ctx.out(`${list.label}:\n${rulesTable(next)}`);
      });
    });

  withOwner(rules.command('rm <index> [index_end]'))
    .description('remove one rule, or an inclusive range of rules')
    .action(async (first: string, last: string | undefined, opts: CommonOptions & RuleOwner) => {
      await withDb(opts, async (ctx) => {
        const list = await ruleList(ctx, opts);
        const [a, b] = parseRange(first, last, list.rules.length);
        const next = list.rules.filter((_, i) => i < a || i > b);
        await list.save(next);
        ctx.out(`${list.label}:\n${rulesTable(next)}`);
      });
    });
}

// ---- event hooks -------------------------------------------------------------------------------

const HOOKS: ReadonlySet<string> = new Set(HOOK_KEYS);

function checkEvent(event: string): void {
  if (!HOOKS.has(event)) throw new UsageError([`unknown event ${JSON.stringify(event)}; events: ${HOOK_KEYS.join(', ')}`]);
}

function hooksText(commands: Record<string, string[]>, keys: readonly string[]): string {
  const lines: string[] = [];
  for (const k of keys) {
    lines.push(`${k}:`);
    (commands[k] ?? []).forEach((c, i) => lines.push(`  ${i}  ${c}`));
  }
  return lines.join('\n');
}

export function registerCmdsCommands(program: Command): void {
  const cmds = program
    .command('cmds')
    .description('event hooks (before_/after_ save, copy, rename, upload, delete); they run only when the server runs with --disable-exec=false');

  withCommon(cmds.command('ls'))
    .description('list hook commands')
    .addOption(new Option('-e, --event <event>', `only one event: ${EVENT_NAMES.join(', ')} (without before_/after_)`))
    .action(async (opts: CommonOptions & { event?: string }) => {
      if (opts.event !== undefined && !(EVENT_NAMES as readonly string[]).includes(opts.event)) {
        throw new UsageError([`--event: expected one of ${EVENT_NAMES.join(', ')} (got ${JSON.stringify(opts.event)})`]);
      }
      await withDb(opts, async (ctx) => {
        const s = await ctx.settings.settings();
        const keys = opts.event ? [`before_${opts.event}`, `after_${opts.event}`] : HOOK_KEYS;
        ctx.out(hooksText(s.commands, keys));
      });
    });

  withCommon(cmds.command('add <event> <command...>'))
    .description('append a command to a hook, e.g. cmds add after_upload "notify {path}"')
    .action(async (event: string, command: string[], opts: CommonOptions) => {
      checkEvent(event);
      const line = command.join(' ').trim();
      if (!line) throw new UsageError(['the command is empty']);
      await withDb(opts, async (ctx) => {
        const s = await ctx.settings.settings();
        s.commands[event] = [...(s.commands[event] ?? []), line];
        await ctx.settings.saveSettings(s);
        ctx.out(hooksText(s.commands, [event]));
      });
    });

  withCommon(cmds.command('rm <event> <index> [index_end]'))
    .description('remove one hook command, or an inclusive range')
    .action(async (event: string, first: string, last: string | undefined, opts: CommonOptions) => {
      checkEvent(event);
      await withDb(opts, async (ctx) => {
        const s = await ctx.settings.settings();
        const list = s.commands[event] ?? [];
        const [a, b] = parseRange(first, last, list.length);
        s.commands[event] = list.filter((_, i) => i < a || i > b);
        await ctx.settings.saveSettings(s);
        ctx.out(hooksText(s.commands, [event]));
      });
    });
}
