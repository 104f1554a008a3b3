// Claude Code's settings files as permission rules, default mode and tool environment (DESIGN §3, §20, §26):
// `~/.claude/settings.json` (the user's), then the project's `.claude/settings.json` and
// `.claude/settings.local.json`. Only `permissions` and `env` are read here (hooks are read
// by their own module; other keys are Claude Code's own business).
//
// Contract
// - `permissions.allow` → rules after the built-in defaults and before our config's
//   `permission` (so our config overrides them); `ask` and `deny` → two restrictions every
//   agent is checked against, strictest answer winning, so as in Claude Code deny beats ask
//   and ask beats any allow, whoever wrote it.
// - A project that is not trusted (DESIGN §15) gives its ask/deny lists but not its allow
//   list nor its `env`; what was left out is noted on the narrowing, which names it.
// - `permissions.defaultMode` is the mode sessions start in when our config names none; an
//   untrusted project's may only be a mode that runs nothing more unasked (not acceptEdits or
//   bypassPermissions).
// - `env` applies to commands the tools run, later files overriding earlier ones; provider
//   variables are refused (env.ts).
// - A missing file is normal. An unreadable or invalid file, an entry we cannot read, an env
//   value that is not text: one warning each, naming the file, and the rest still applies.
import { join } from 'node:path';
import type { PeerUserDirs } from '../config/paths.js';
import { JsoncSyntaxError, parseJsonc } from '../config/jsonc.js';
import { isPlainObject } from '../config/merge.js';
import type { SourceWarning } from '../markdown-folder.js';
import { rulesFromConfig, type Rule } from '../permission/rules.js';
import type { PermissionAction, PermissionConfig } from '../permission/schema.js';
import { badModeMessage, isPermissionMode, loosensPermissions, type PermissionMode } from '../permission/modes.js';
import { describeProblem, readSmallFileSync } from '../tools/regular-file.js';
import type { ProjectNarrowing } from '../trust/narrow.js';
import { settingsEnv } from './env.js';
import { settingsEntryRule } from './permission-entry.js';

export { isProviderVariable, settingsEnv } from './env.js';
export { settingsEntryRule, type EntryRule } from './permission-entry.js';

export interface ClaudeSettings {
  /** Rules from the `allow` lists, for before the config's own. */
  allow: Rule[];
  /** The `ask` and `deny` lists, each a restriction (see the contract); empty when none. */
  restrictions: PermissionConfig[];
  /** Variables for the commands tools run. */
  env: Record<string, string>;
  /** `permissions.defaultMode` of the last file that gave a valid one (DESIGN §26). */
  defaultMode?: PermissionMode;
  /** The files that were read, lowest precedence first. */
  sources: string[];
  warnings: SourceWarning[];
}

export interface LoadClaudeSettingsOptions {
  /** The project's root folder: its `.claude/` is read. */
  projectRoot: string;
  /** `~/.claude` is read from here; absent, no user file. */
  peerDirs?: PeerUserDirs | undefined;
  /** Given when the project is not trusted: its allow lists and env are left out and named. */
  narrowing?: ProjectNarrowing | undefined;
}

export const SETTINGS_FILE = 'settings.json';
export const LOCAL_SETTINGS_FILE = 'settings.local.json';

const LISTS = ['allow', 'ask', 'deny'] as const;
type ListName = (typeof LISTS)[number];

/** The settings files, lowest precedence first. */
export function claudeSettingsFiles(opts: Pick<LoadClaudeSettingsOptions, 'projectRoot' | 'peerDirs'>): Array<{ file: string; project: boolean }> {
  const projectDir = join(opts.projectRoot, '.claude');
  return [
    ...(opts.peerDirs ? [{ file: join(opts.peerDirs.claude, SETTINGS_FILE), project: false }] : []),
    { file: join(projectDir, SETTINGS_FILE), project: true },
    { file: join(projectDir, LOCAL_SETTINGS_FILE), project: true },
  ];
}

/** One file's top-level object, or a reason it cannot be used; undefined when there is no file. */
function readSettings(file: string): { data: Record<string, unknown> } | { problem: string } | undefined {
  const read = readSmallFileSync(file);
  if (!('text' in read)) return read.problem === 'missing' ? undefined : { problem: `it ${describeProblem(read)}` };
  let parsed: unknown;
  try {
    parsed = parseJsonc(read.text);
  } catch (err) {
    if (err instanceof JsoncSyntaxError) return { problem: err.message };
    throw err;
  }
  if (parsed === undefined) return { data: {} };
  return isPlainObject(parsed) ? { data: parsed } : { problem: 'the top level must be an object' };
}

function quoted(items: readonly string[]): string {
  return items.map((item) => JSON.stringify(item.length > 80 ? `${item.slice(0, 77)}...` : item)).join(', ');
}

export function loadClaudeSettings(opts: LoadClaudeSettingsOptions): ClaudeSettings {
  const lists: Record<ListName, PermissionConfig> = { allow: {}, ask: {}, deny: {} };
  const env: Record<string, string> = {};
  const sources: string[] = [];
  const warnings: SourceWarning[] = [];
  const warn = (source: string, message: string) => warnings.push({ source, message });
  let defaultMode: PermissionMode | undefined;

  for (const { file, project } of claudeSettingsFiles(opts)) {
    const read = readSettings(file);
    if (read === undefined) continue;
    if ('problem' in read) {
      warn(file, `skipped: ${read.problem}.`);
      continue;
    }
    sources.push(file);
    const cut = project ? opts.narrowing : undefined;
    const { permissions, env: vars } = read.data;

    if (permissions !== undefined && !isPlainObject(permissions)) warn(file, '"permissions" must be an object with allow, ask and deny lists; ignored.');
    const unknown: string[] = [];
    for (const list of LISTS) {
      const entries = isPlainObject(permissions) ? permissions[list] : undefined;
      if (entries === undefined) continue;
      if (!Array.isArray(entries)) {
        warn(file, `"permissions.${list}" must be a list of rules like "Bash(npm run test:*)"; ignored.`);
        continue;
      }
      if (list === 'allow' && cut) {
        if (entries.length > 0) cut.noteIgnored('permissions.allow', file);
        continue;
      }
      for (const entry of entries) {
        const rule = typeof entry === 'string' ? settingsEntryRule(entry) : undefined;
        if (!rule) {
          unknown.push(typeof entry === 'string' ? entry : JSON.stringify(entry));
          continue;
        }
        addRule(lists[list], rule.permission, rule.patterns, list);
      }
    }
    const mode = isPlainObject(permissions) ? permissions.defaultMode : undefined;
    if (mode !== undefined) {
      // An untrusted project may choose a stricter mode, never one that runs more unasked.
      if (!isPermissionMode(mode)) warn(file, `${badModeMessage('"permissions.defaultMode"', mode).slice(0, -1)}; ignored.`);
      else if (cut && loosensPermissions(mode)) cut.noteIgnored('permissions.defaultMode', file);
      else defaultMode = mode;
    }
    if (unknown.length > 0) {
      warn(file, `permission rules not understood, so ignored: ${quoted(unknown)} (known forms: Bash, Bash(npm run test:*), Read(./secrets/**), Edit(src/**), WebFetch(domain:example.com), mcp__server__tool).`);
    }

    if (vars === undefined) continue;
    if (!isPlainObject(vars)) {
      warn(file, '"env" must be an object of variable names and values; ignored.');
      continue;
    }
    if (cut) {
      if (Object.keys(vars).length > 0) cut.noteIgnored('env', file);
      continue;
    }
    const parsed = settingsEnv(vars);
    Object.assign(env, parsed.env);
    if (parsed.refused.length > 0) {
      warn(file, `env ${parsed.refused.join(', ')} not applied: providers are configured in opencode-ink's own config, and commands never get provider keys.`);
    }
    if (parsed.invalid.length > 0) warn(file, `env ${quoted(parsed.invalid)} ignored: each entry must be a variable name with a text value.`);
  }

  const restrictions = [lists.ask, lists.deny].filter((config) => Object.keys(config).length > 0);
  return { allow: rulesFromConfig(lists.allow), restrictions, env, sources, warnings, ...(defaultMode ? { defaultMode } : {}) };
}

function addRule(config: PermissionConfig, permission: string, patterns: readonly string[], action: PermissionAction): void {
  const existing = config[permission];
  const rules: Record<string, PermissionAction> = typeof existing === 'object' ? existing : {};
  for (const pattern of patterns) rules[pattern] = action;
  config[permission] = rules;
}
