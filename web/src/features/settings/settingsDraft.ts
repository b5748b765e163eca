/**
 * The global settings form's plain logic (docs/client.md §2 "Global settings", §5): the numbers typed as
 * text and their bounds, the chunk size, what gets sent (PUT /api/settings replaces every
 * editable field, docs/api.md §4.2), server refusals pointed at the field they are about, and the
 * editor the cards are given.
 */
import type { Settings } from '@coffer/protocol';
import { chunkSizeFromText, formatChunkSize } from '../../lib/chunkSize';
import { quotaFromParts, quotaParts, type QuotaUnit } from '../../lib/quota';
import { MIN_PASSWORD_LENGTH_MIN, RETRY_COUNT_MIN } from '../../lib/limits';
import { editableRules, ruleIndexFromError, ruleProblems } from './rules';

/** Fields typed as text, kept apart from the settings until they are read. */
export interface SettingsTexts {
  minimumPasswordLength: string;
  retryCount: string;
  chunkSize: string;
  /** New users' quota (docs/api.md §4.1 `defaults.quota`): amount and unit; empty = none. */
  quotaAmount: string;
  quotaUnit: QuotaUnit;
}

export type NumberField = 'minimumPasswordLength' | 'retryCount';

/** Lower bounds of the typed numbers (docs/client.md §5). */
export const NUMBER_MIN: Record<NumberField, number> = {
  minimumPasswordLength: MIN_PASSWORD_LENGTH_MIN,
  retryCount: RETRY_COUNT_MIN,
};

/** A whole number ≥ min written in plain digits, or null. */
export function wholeNumberAtLeast(text: string, min: number): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

/** The settings as the form edits them: rules ready for the editor, every list present. */
export function editableSettings(s: Settings): Settings {
  return {
    ...s,
    rules: editableRules(s.rules),
    shell: s.shell ?? [],
    commands: s.commands ?? {},
    defaults: { ...s.defaults, commands: s.defaults.commands ?? [] },
    // A server before the setting existed: its default.
    webdav: s.webdav ?? { refuseMacMetadata: true },
  };
}

export function textsOf(s: Settings): SettingsTexts {
  return {
    minimumPasswordLength: String(s.minimumPasswordLength),
    retryCount: String(s.tus.retryCount),
    chunkSize: formatChunkSize(s.tus.chunkSize),
    ...(({ amount, unit }) => ({ quotaAmount: amount, quotaUnit: unit }))(quotaParts(s.defaults.quota ?? 0)),
  };
}

/** The typed default quota in bytes (0 = none), or null while it is not a number. */
export function defaultQuota(texts: SettingsTexts): number | null {
  return quotaFromParts({ amount: texts.quotaAmount, unit: texts.quotaUnit });
}

export interface SettingsProblems {
  numbers: Partial<Record<NumberField, number>>;
  /** Some rule is incomplete or its pattern does not compile. */
  rules: boolean;
  /** The default quota is not a positive number (nor empty). */
  quota: boolean;
}

/** What keeps the form from being sent; numbers map to the minimum they must reach. */
export function settingsProblems(s: Settings, texts: SettingsTexts): SettingsProblems {
  const numbers: SettingsProblems['numbers'] = {};
  for (const field of Object.keys(NUMBER_MIN) as NumberField[]) {
    if (wholeNumberAtLeast(texts[field], NUMBER_MIN[field]) === null) numbers[field] = NUMBER_MIN[field];
  }
  return { numbers, rules: ruleProblems(s.rules).size > 0, quota: defaultQuota(texts) === null };
}

export function hasProblems(p: SettingsProblems): boolean {
  return p.rules || p.quota || Object.keys(p.numbers).length > 0;
}

/** The body of PUT /api/settings: the edited settings with the typed fields read (valid ones). */
export function settingsToSave(s: Settings, texts: SettingsTexts): Settings {
  return {
    ...s,
    defaults: { ...s.defaults, quota: defaultQuota(texts) ?? s.defaults.quota ?? 0 },
    minimumPasswordLength:
      wholeNumberAtLeast(texts.minimumPasswordLength, MIN_PASSWORD_LENGTH_MIN) ?? s.minimumPasswordLength,
    tus: {
      chunkSize: chunkSizeFromText(texts.chunkSize),
      retryCount: wholeNumberAtLeast(texts.retryCount, RETRY_COUNT_MIN) ?? s.tus.retryCount,
    },
  };
}

export type ServerProblem =
  | { field: 'rules'; index: number; message: string }
  | { field: 'userHomeBasePath' | 'scope'; message: string };

/**
 * A 400 from PUT /api/settings that names a field ("invalid rule: rule 2: …", "userHomeBasePath
 * climbs above the server root", "defaults.scope is not a valid path"), or null.
 */
export function serverProblem(message: string): ServerProblem | null {
  const detail = /\((.*)\)\s*$/s.exec(message)?.[1] ?? message;
  const index = ruleIndexFromError(detail);
  if (detail.startsWith('invalid rule') && index !== null) {
    return { field: 'rules', index, message: detail.replace(/^invalid rule: rule \d+: /, '') };
  }
  if (detail.startsWith('userHomeBasePath')) return { field: 'userHomeBasePath', message: detail };
  if (detail.startsWith('defaults.scope')) return { field: 'scope', message: detail };
  return null;
}

/** What the cards get: the draft, its typed fields, and the problems to show next to fields. */
export interface SettingsEditor {
  settings: Settings;
  texts: SettingsTexts;
  change: (update: (s: Settings) => Settings) => void;
  setText: (field: keyof SettingsTexts, text: string) => void;
  numberError: (field: NumberField) => string | null;
  pathError: (field: 'userHomeBasePath' | 'scope') => string | null;
  /** A save was tried: every problem shows. */
  attempted: boolean;
  rulesError: { index: number; message: string } | null;
}
