import type { Command } from 'commander';
import { hashPassword } from '../auth/passwords.js';
import { registerConfigCommands } from './config.js';
import { registerImportCommands } from './import.js';
import { registerCmdsCommands, registerRulesCommands } from './rules.js';
import { registerUsersCommands } from './users.js';

/**
 * Admin sub-commands (README "Administration"): users, config, rules, cmds, import, hash. They open the database the
 * server uses (SQLite in WAL mode with a busy timeout, or PostgreSQL), so they also work while a
 * server runs; settings changes are seen by it at once, server settings at its next start.
 */
export function registerAdminCommands(program: Command): void {
  registerUsersCommands(program);
  registerConfigCommands(program);
  registerRulesCommands(program);
  registerCmdsCommands(program);
  registerImportCommands(program);
  program
    .command('hash <password>')
    .description('print an argon2id hash of a password (Coffer stores argon2id; File Browser bcrypt hashes are still accepted)')
    .action(async (password: string) => {
      process.stdout.write(`${await hashPassword(password)}\n`);
    });
}
