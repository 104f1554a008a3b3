// Permission modes (DESIGN §26), with Claude Code's names. Contract:
// - One mode per root session, chosen by the front end (Shift+Tab, `--permission-mode`, ACP's
//   `session/set_mode`, the library's `permissionMode`) and changeable while the session runs.
// - A mode never beats a `deny` rule, the control-file guard (`mustAsk`) nor leaving the
//   sandbox (`needsPerson`): it only decides what happens to a request that would ask, plus
//   `plan`, which adds the `plan` agent's rules (edits denied, every command asked) and
//   refuses other tools that change things.
// - Sub-agents (§7 gate B): a session's effective mode is its parent's when the parent is in
//   `acceptEdits` or looser (the parent passes its mode down); otherwise its agent's own
//   `permissionMode`, or the parent's when it has none. The decision is then the strictest
//   over the session's effective mode and every ancestor's, so a child is never looser than
//   its parent. Modes are read at every check, so a change applies at once to running children.
import { isAbsolute } from 'node:path';
import type { PermissionRequest } from '../tools/types.js';
import type { PermissionAction } from './schema.js';
import type { Ruleset } from './rules.js';

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The modes Shift+Tab cycles through in the TUI, in order. */
export const CYCLED_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'plan'];

/** What each mode does, in a few words (status line, ACP's mode list, `--help`). */
export const MODE_DESCRIPTIONS: Readonly<Record<PermissionMode, string>> = {
  default: 'Asks before edits, commands and other actions, as the rules say.',
  acceptEdits: 'Edits files inside the project without asking; control files, paths outside and commands still ask.',
  plan: 'Read-only: files cannot be changed and every command asks.',
  dontAsk: 'Refuses whatever would ask; only what the rules allow runs.',
  bypassPermissions: 'Allows whatever would ask; deny rules, control files and leaving the sandbox still stop it.',
};

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value);
}

/** One sentence saying what was wrong with a mode given as `where` (a flag, a config key, a field). */
export function badModeMessage(where: string, value: unknown): string {
  const shown = typeof value === 'string' ? `"${value}"` : JSON.stringify(value) ?? String(value);
  return `${where} must be one of ${PERMISSION_MODES.join(', ')}; got ${shown}.`;
}

/** The mode Shift+Tab goes to next; from a mode outside the cycle it goes back to `default`. */
export function nextCycledMode(mode: PermissionMode): PermissionMode {
  const at = CYCLED_MODES.indexOf(mode);
  return at < 0 ? 'default' : CYCLED_MODES[(at + 1) % CYCLED_MODES.length]!;
}

/** A mode that lets more run unasked than `default`: a parent in one passes it down; an untrusted file may not choose one. */
export function loosensPermissions(mode: PermissionMode): boolean {
  return mode === 'acceptEdits' || mode === 'bypassPermissions';
}

/** A session's own effective mode from its parent's (or, for a root, the session's chosen mode) and its agent's `permissionMode`. */
export function effectiveMode(parent: PermissionMode, own: PermissionMode | undefined): PermissionMode {
  if (loosensPermissions(parent)) return parent;
  return own ?? parent;
}

/** The `plan` agent's rules (agents/plan.md), checked as a ruleset of their own so nothing else can lift them. */
export const PLAN_RULESET: Ruleset = [
  { permission: '*', pattern: '*', action: 'allow' },
  { permission: 'edit', pattern: '*', action: 'deny' },
  { permission: 'bash', pattern: '*', action: 'ask' },
];

/**
 * Tools that are not marked read-only but that the `plan` agent keeps: commands (always
 * asked), its todo list, questions, sub-agents (which inherit plan), skills.
 */
const PLAN_KEEPS = new Set(['bash', 'todowrite', 'todoread', 'ask_user', 'task', 'skill']);

/** Why `plan` refuses a call of `tool`, or undefined when plan lets it through to the rules. */
export function planRefusal(tool: string, readOnly: boolean | undefined, request: PermissionRequest): string | undefined {
  if (request.permission === 'edit') return `Plan mode is read-only: ${tool} ${request.file ?? request.patterns.join(', ')} was not changed. Present the plan instead; the user leaves plan mode to carry it out.`;
  if (readOnly === true || PLAN_KEEPS.has(tool)) return undefined;
  return `Plan mode is read-only: the ${tool} tool can change things, so it is not available. Present the plan instead; the user leaves plan mode to carry it out.`;
}

/** A file request inside the session's folder: `file` is shown relative to it, or absolute when outside. */
function editInsideProject(request: PermissionRequest): boolean {
  if (request.permission !== 'edit' || request.file === undefined) return false;
  const file = request.file;
  return !isAbsolute(file) && file !== '..' && !file.startsWith('../');
}

/**
 * What one mode does with a request the rules (and earlier answers) would ask about:
 * `allow` runs it unasked, `deny` refuses it, `ask` leaves it to a person.
 */
export function modeOnAsk(mode: PermissionMode, request: PermissionRequest): PermissionAction {
  const guarded = request.mustAsk !== undefined || request.needsPerson !== undefined;
  switch (mode) {
    case 'default':
    case 'plan':
      return 'ask';
    case 'dontAsk':
      return 'deny';
    case 'acceptEdits':
      return !guarded && editInsideProject(request) ? 'allow' : 'ask';
    case 'bypassPermissions':
      return guarded ? 'ask' : 'allow';
  }
}

/** The text a refused request gets in `dontAsk`. */
export function dontAskRefusal(tool: string, request: PermissionRequest): string {
  const what = request.file !== undefined ? `${tool} ${request.file}` : `${tool} (${request.subject.split('\n')[0]})`;
  return `${what} needs approval, and the session is in dontAsk mode, which refuses whatever would ask. Work with what the rules allow, or tell the user which rule or mode would allow it.`;
}
