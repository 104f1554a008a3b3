// Tool names in agent files, mapped to ours. Claude Code files name tools in PascalCase
// (`Read, Grep`), sometimes scoped like `Bash(git log:*)`; OpenCode files use our lowercase
// names in a `{ name: boolean }` map. Both must load unchanged.
//
// Contract
// - An allowlist entry is a tool name (any alias, any case) or a glob over our names
//   (`gl*`, `mcp__github__*`): `*` matches any run of characters.
// - A scoped entry gives the tool AND narrows it for this agent: `Bash(git log:*)` becomes
//   the bash rules `{ "*": "deny", "git log": "allow", "git log *": "allow" }`. `Edit(src/**)` /
//   `Write(…)` become `edit` rules, `WebFetch(domain:x)` `webfetch` rules and `Task(a, b)`
//   (`Agent(…)`) `task` rules. A plain entry for the same permission (`Bash` beside
//   `Bash(git:*)`) keeps the whole tool. A scope we cannot express on a tool with a
//   permission key is dropped, so it denies rather than widens; on a tool without one
//   (`Read(src/**)`) the tool is given whole. Either way the agent's load warning says so.
// - An allowlist that names entries but ends up with no tool is a warning, never silent.
import { homedir } from 'node:os';
import { wildcardMatch } from '../permission/rules.js';
import type { PermissionAction, PermissionConfig } from '../permission/schema.js';
import type { AgentToolsField } from './schema.js';

export const TOOL_NAMES = [
  'read',
  'write',
  'edit',
  'list',
  'glob',
  'grep',
  'bash',
  'bash_output',
  'kill_shell',
  'webfetch',
  'websearch',
  'todowrite',
  'todoread',
  'task',
  'task_list',
  'ask_user',
  'skill',
  'memory',
] as const;

const ALIASES: Record<string, string> = {
  multiedit: 'edit',
  ls: 'list',
  agent: 'task',
  askuserquestion: 'ask_user',
  // Claude Code's names for the background-shell tools (KillBash before it was renamed).
  bashoutput: 'bash_output',
  killshell: 'kill_shell',
  killbash: 'kill_shell',
  // Claude Code's four tools over its team task list are one tool here (DESIGN §24).
  taskcreate: 'task_list',
  tasklist: 'task_list',
  taskupdate: 'task_list',
  taskget: 'task_list',
  // Claude Code's agent-team messages: a team member has `send_message` whatever its list says (subagents/gates.ts).
  sendmessage: 'send_message',
  send_message: 'send_message',
  // Claude Code's team set-up (DESIGN §24): a teammate starts as a `task` with `name`, and a
  // team ends as each teammate is sent `send_message` with `shutdown: true`.
  teamcreate: 'task',
  teamdelete: 'send_message',
};

/**
 * Claude Code tools with no counterpart here, by lowercase name, with what to do instead: a
 * file naming one is told so in those words rather than that the tool is unknown.
 */
const NO_COUNTERPART: Record<string, string> = {
  notebookedit: 'notebooks are edited as text by edit and write',
  toolsearch: 'every tool is offered to the model at once, so there is nothing to search for',
};

/** Why a Claude Code tool name has no counterpart here, or undefined when it is simply not known. */
export function noCounterpart(raw: string): string | undefined {
  return NO_COUNTERPART[splitScope(raw).tool.toLowerCase()];
}

/** MCP tools exist only once their server connects, so their names cannot be checked when a file loads. */
const MCP_PREFIX = 'mcp__';

/** `Bash(git log:*)` → `{ tool: "Bash", scope: "git log:*" }`. */
export function splitScope(raw: string): { tool: string; scope?: string } {
  const match = /^([^()]*)\((.*)\)$/s.exec(raw.trim());
  if (!match) return { tool: raw.trim() };
  return { tool: match[1]!.trim(), scope: match[2]!.trim() };
}

/**
 * Our name for a tool as written in an agent file, or undefined when we have no such tool.
 * `extraTools` names tools a program added (the library's in-process tools), known as well.
 */
export function toolName(raw: string, extraTools: readonly string[] = []): string | undefined {
  // A scope restricts the tool; the tool itself is still meant.
  const bare = splitScope(raw).tool.toLowerCase();
  if ((TOOL_NAMES as readonly string[]).includes(bare)) return bare;
  if (extraTools.some((name) => name.toLowerCase() === bare)) return bare;
  return ALIASES[bare];
}

/**
 * An allowlist entry as gate A matches it: our name for a known tool, a lowercase glob, an
 * MCP tool name, or undefined when it can name nothing we have.
 */
export function allowlistPattern(raw: string, extraTools: readonly string[] = []): string | undefined {
  const known = toolName(raw, extraTools);
  if (known) return known;
  const bare = splitScope(raw).tool.toLowerCase();
  if (!bare) return undefined;
  // `mcp__github` (a whole server, as Claude Code writes it) means every tool of that server.
  if (bare.startsWith(MCP_PREFIX)) return bare.includes('__', MCP_PREFIX.length) ? bare : `${bare}__*`;
  if (bare.includes('*') && [...TOOL_NAMES, ...extraTools].some((name) => wildcardMatch(bare, name.toLowerCase()))) return bare;
  return undefined;
}

/** True when a tool name is on an allowlist of names and globs (case-insensitive). */
export function allowlistMatches(allowlist: readonly string[], name: string): boolean {
  const lower = name.toLowerCase();
  return allowlist.some((pattern) => wildcardMatch(pattern.toLowerCase(), lower));
}

export interface ToolSelection {
  /** `tools` given as a list: names and globs, lowercase. */
  allow?: string[];
  /** From a map: names set to false. */
  disable: string[];
  /** From a map: names set to true. */
  enable: string[];
  /** Names we do not know, as written. */
  unknown: string[];
  /** Rules implied by scoped entries (`Bash(git log:*)`), by permission key. */
  permission?: PermissionConfig;
  /** Scoped entries whose scope was not applied, as written, with what happened instead. */
  ignoredScopes: Array<{ entry: string; effect: 'whole tool' | 'denied' }>;
  /** The list named entries, yet no tool is left on it. */
  empty: boolean;
}

/** Splits `Read, Bash(git add, git commit), Grep` on the commas outside parentheses. */
export function splitList(text: string): string[] {
  return splitOutsideParentheses(text, (ch) => ch === ',');
}

/** Splits `text` on the characters `isSeparator` accepts outside parentheses; trimmed, empty parts dropped. */
export function splitOutsideParentheses(text: string, isSeparator: (ch: string) => boolean): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && isSeparator(ch)) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}

/** Which permission key a scope on this tool narrows; tools without one cannot be scoped. */
export function scopedKey(tool: string): 'bash' | 'edit' | 'webfetch' | 'task' | undefined {
  if (tool === 'bash' || tool === 'webfetch' || tool === 'task') return tool;
  if (tool === 'edit' || tool === 'write') return 'edit';
  return undefined;
}

/**
 * Claude Code's bash scopes: `npm test` exactly; `git log:*` is `git log` or `git log …`
 * (a word boundary, so not `git logx`); a pattern ending in ` *` also matches without the tail.
 */
function bashPatterns(scope: string): string[] {
  if (scope.endsWith(':*')) {
    const prefix = scope.slice(0, -2).trimEnd();
    return prefix ? [prefix, `${prefix} *`] : [];
  }
  if (scope.endsWith(' *') && scope.indexOf('*') === scope.length - 1) return [scope.slice(0, -2).trimEnd(), scope];
  return [scope];
}

/**
 * Claude Code's gitignore-style paths → our `edit` patterns (the path relative to the working
 * directory, or absolute outside it): `./src/**` and `/src/**` are relative, `//etc/x` absolute,
 * `~/x` under home. Our `*` also crosses `/`, so a scope can be a little wider than in Claude Code.
 */
export function editPattern(scope: string): string {
  if (scope.startsWith('//')) return scope.slice(1);
  if (scope.startsWith('~/')) return `${homedir()}/${scope.slice(2)}`;
  if (scope.startsWith('./')) return scope.slice(2);
  if (scope.startsWith('/')) return scope.slice(1);
  return scope;
}

/**
 * `domain:example.com` → both schemes of that exact host. A wildcard host is not expressible:
 * our `*` crosses `/`, so `https://*.example.com/*` would also match `https://evil.test/.example.com/`.
 */
function webfetchPatterns(scope: string): string[] | undefined {
  const match = /^domain:([a-z0-9.-]+(?::\d+)?)$/i.exec(scope);
  if (!match) return undefined;
  const host = match[1]!.toLowerCase();
  return [`https://${host}/*`, `http://${host}/*`];
}

/** The allow patterns one scope gives, or undefined when we cannot express it. */
export function scopePatterns(key: 'bash' | 'edit' | 'webfetch' | 'task', scope: string): string[] | undefined {
  switch (key) {
    case 'bash':
      // `Bash(git add, git commit)` lists several commands in one entry.
      return scope
        .split(/,\s+/)
        .filter((s) => s.length > 0)
        .flatMap(bashPatterns);
    case 'edit':
      return [editPattern(scope)];
    case 'webfetch':
      return webfetchPatterns(scope);
    case 'task':
      return scope
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
  }
}

/** Scopes that mean the whole tool: `Bash()`, `Bash(*)`, `Edit(**)`. */
export function isWholeScope(scope: string): boolean {
  return scope === '' || scope === '*' || scope === '**' || scope === '/**' || scope === './**';
}

function selectList(entries: readonly string[], selection: ToolSelection, extraTools: readonly string[]): void {
  const allow: string[] = [];
  /** Permission keys some entry gives whole; their scopes are then moot. */
  const whole = new Set<string>();
  const scoped = new Map<string, string[]>();
  for (const entry of entries) {
    const { scope } = splitScope(entry);
    const pattern = allowlistPattern(entry, extraTools);
    if (!pattern) {
      selection.unknown.push(entry);
      continue;
    }
    allow.push(pattern);
    const key = scopedKey(pattern);
    if (scope === undefined || isWholeScope(scope)) {
      if (key) whole.add(key);
      continue;
    }
    if (!key) {
      selection.ignoredScopes.push({ entry, effect: 'whole tool' });
      continue;
    }
    const patterns = scopePatterns(key, scope);
    if (!patterns) selection.ignoredScopes.push({ entry, effect: 'denied' });
    scoped.set(key, [...(scoped.get(key) ?? []), ...(patterns ?? [])]);
  }
  selection.allow = unique(allow);
  selection.empty = entries.length > 0 && selection.allow.length === 0;
  const permission: PermissionConfig = {};
  for (const [key, patterns] of scoped) {
    if (whole.has(key)) continue;
    const rules: Record<string, PermissionAction> = { '*': 'deny' };
    for (const p of patterns) rules[p] = 'allow';
    permission[key] = rules;
  }
  if (Object.keys(permission).length > 0) selection.permission = permission;
}

/** `extraTools`: names of tools a program added, which an allowlist may name like built-ins. */
export function selectTools(field: AgentToolsField, extraTools: readonly string[] = []): ToolSelection {
  const selection: ToolSelection = { disable: [], enable: [], unknown: [], ignoredScopes: [], empty: false };
  if (typeof field === 'string' || Array.isArray(field)) {
    const entries = typeof field === 'string' ? splitList(field) : field.map((e) => e.trim()).filter((e) => e.length > 0);
    // A blank `tools:` string and `*` both mean "no restriction", as in Claude Code.
    if ((typeof field === 'string' && entries.length === 0) || entries.includes('*')) return selection;
    selectList(entries, selection, extraTools);
    return selection;
  }
  for (const [entry, enabled] of Object.entries(field)) {
    const name = toolName(entry, extraTools);
    if (!name) selection.unknown.push(entry);
    else (enabled ? selection.enable : selection.disable).push(name);
  }
  selection.enable = unique(selection.enable);
  selection.disable = unique(selection.disable);
  return selection;
}

/** One sentence for the names a file gives that we lack: those of Claude Code tools without a counterpart first, each with why. */
export function unknownToolsWarning(unknown: readonly string[]): string {
  const absent = unknown.filter((name) => noCounterpart(name) !== undefined);
  const other = unknown.filter((name) => noCounterpart(name) === undefined);
  const parts = absent.map((name) => `"${name}" has no counterpart here (${noCounterpart(name)})`);
  if (other.length > 0) parts.push(`unknown tool${other.length > 1 ? 's' : ''} ${other.map((n) => `"${n}"`).join(', ')} (known tools: ${TOOL_NAMES.join(', ')})`);
  return `ignoring ${parts.join('; ')}.`;
}

/** The load warnings a selection deserves: unknown names, scopes not applied, an empty list. */
export function selectionWarnings(selection: ToolSelection): string[] {
  const warnings: string[] = [];
  if (selection.unknown.length > 0) warnings.push(unknownToolsWarning(selection.unknown));
  const whole = selection.ignoredScopes.filter((s) => s.effect === 'whole tool').map((s) => `"${s.entry}"`);
  if (whole.length > 0) warnings.push(`ignoring the scope of ${whole.join(', ')}: only Bash, Edit, Write, WebFetch and Task can be scoped, so the whole tool is given.`);
  const denied = selection.ignoredScopes.filter((s) => s.effect === 'denied').map((s) => `"${s.entry}"`);
  if (denied.length > 0) warnings.push(`cannot read the scope of ${denied.join(', ')} (expected e.g. WebFetch(domain:example.com)); those calls are denied.`);
  if (selection.empty) warnings.push('its tools list names no tool that exists, so it has no tools besides ask_user.');
  return warnings;
}
