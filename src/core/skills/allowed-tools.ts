// A skill's `allowed-tools` (Claude Code: the tools that run without asking while the skill
// is active), read into permission grants. Contract:
// - The field is a list, or one string of entries separated by commas or spaces outside
//   parentheses: `Read, Grep` and `Bash(git add:*) Bash(git commit:*)` alike.
// - Each entry is read as Claude Code settings' `permissions.allow` entries are
//   (claude-settings/permission-entry.ts), so `Bash(git add:*)` allows `git add …` and no
//   other command; an entry naming no tool we have, or a scope we cannot express, is named in
//   one warning and grants nothing (a guessed pattern could allow more than was written).
// - Grants only ever settle what would ask: the permission gate applies them after deny rules,
//   the control-file guard, leaving the sandbox and plan mode have had their say
//   (permission/gate.ts), and never for an untrusted project's skill (project-context.ts).
import { noCounterpart, splitOutsideParentheses } from '../agents/tools.js';
import { settingsEntryRule } from '../claude-settings/permission-entry.js';
import type { SkillGrant } from './definition.js';

/** Entries read from one skill: more is not a list of tools but a mistake or an attack. */
export const MAX_ALLOWED_TOOLS = 100;

export interface AllowedTools {
  /** Each entry as written. */
  entries: string[];
  grants: SkillGrant[];
  warnings: string[];
}

/** Splits on commas and whitespace outside parentheses: `Bash(git add, git commit)` stays one entry. */
export function splitAllowedTools(text: string): string[] {
  return splitOutsideParentheses(text, (ch) => ch === ',' || /\s/.test(ch));
}

export function allowedToolGrants(value: string | readonly string[] | undefined): AllowedTools {
  if (value === undefined) return { entries: [], grants: [], warnings: [] };
  const all = typeof value === 'string' ? splitAllowedTools(value) : value.map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  const warnings: string[] = [];
  if (all.length > MAX_ALLOWED_TOOLS) warnings.push(`"allowed-tools" has ${all.length} entries; only the first ${MAX_ALLOWED_TOOLS} are applied.`);
  const entries = all.slice(0, MAX_ALLOWED_TOOLS);
  const grants: SkillGrant[] = [];
  const unknown: string[] = [];
  for (const entry of entries) {
    const rule = settingsEntryRule(entry);
    const absent = rule ? undefined : noCounterpart(entry);
    if (rule) grants.push({ permission: rule.permission, patterns: rule.patterns });
    else if (absent) warnings.push(`"allowed-tools": ${JSON.stringify(entry)} is a Claude Code tool with no counterpart here (${absent}), so it grants nothing.`);
    else unknown.push(entry);
  }
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 10).map((entry) => JSON.stringify(entry.length > 80 ? `${entry.slice(0, 77)}...` : entry));
    const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : '';
    warnings.push(
      `"allowed-tools": ${shown.join(', ')}${more} ${unknown.length === 1 ? 'names' : 'name'} no tool (or scope) this program has, so ${unknown.length === 1 ? 'it still asks' : 'they still ask'} as the rules say.`,
    );
  }
  return { entries, grants, warnings };
}
