import type { Command } from 'commander';

/** Admin sub-commands (users, config, rules, cmds, hash) on the same database as the server. */
export function registerAdminCommands(program: Command): void {
  void program;
}
