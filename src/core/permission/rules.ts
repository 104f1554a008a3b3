// Permission rules, flattened to `{permission, pattern, action}` with the last matching rule
// winning. A session's decision is the strictest across its own ruleset and every
// ancestor's (deny > ask > allow), so a child can never do what its parent may not.
import { normaliseUrlPattern } from '../tools/web-url.js';
import type { PermissionAction, PermissionConfig } from './schema.js';

export interface Rule {
  permission: string;
  pattern: string;
  action: PermissionAction;
}

export type Ruleset = readonly Rule[];

/** Read-only work is allowed; anything that changes files, runs commands, reaches the network, leaves the project or calls an MCP server asks. */
export const DEFAULT_RULES: Ruleset = [
  { permission: '*', pattern: '*', action: 'allow' },
  { permission: 'edit', pattern: '*', action: 'ask' },
  { permission: 'bash', pattern: '*', action: 'ask' },
  { permission: 'webfetch', pattern: '*', action: 'ask' },
  { permission: 'external_directory', pattern: '*', action: 'ask' },
  // MCP tools can do anything their server can; the user decides (`"mcp__github__*": "allow"`).
  { permission: 'mcp__*', pattern: '*', action: 'ask' },
];

/** `{ edit: "ask", bash: { "*": "ask", "git status*": "allow" } }` → rules in the order written. */
export function rulesFromConfig(config: PermissionConfig | undefined): Rule[] {
  if (!config) return [];
  const rules: Rule[] = [];
  for (const [permission, value] of Object.entries(config)) {
    if (typeof value === 'string') {
      rules.push({ permission, pattern: '*', action: value });
      continue;
    }
    for (const [pattern, action] of Object.entries(value)) rules.push({ permission, pattern: normalisedPattern(permission, pattern), action });
  }
  return rules;
}

/** webfetch rules name URLs as webfetch spells them (no user info, no trailing dot, ASCII host). */
function normalisedPattern(permission: string, pattern: string): string {
  return permission === 'webfetch' ? normaliseUrlPattern(pattern) : pattern;
}

const RANK: Record<PermissionAction, number> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: PermissionAction, b: PermissionAction): PermissionAction {
  return RANK[a] >= RANK[b] ? a : b;
}

const regexCache = new Map<string, RegExp>();

/**
 * `*` matches any run of characters (slashes and spaces included); everything else is
 * literal. A pattern ending in ` *` also matches without that part, so `rm *` covers a
 * bare `rm` (as `xargs rm` runs it) as well as `rm -rf x`.
 */
export function wildcardMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  let re = regexCache.get(pattern);
  if (!re) {
    const optionalTail = pattern.endsWith(' *');
    const source = (optionalTail ? pattern.slice(0, -2) : pattern)
      .split('*')
      .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${source}${optionalTail ? '( .*)?' : ''}$`, 's');
    regexCache.set(pattern, re);
  }
  return re.test(value);
}

/** The action of the last rule matching both the permission and the pattern; `ask` if none does. */
export function evaluateRule(ruleset: Ruleset, permission: string, pattern: string): PermissionAction {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!;
    if (wildcardMatch(rule.permission, permission) && wildcardMatch(rule.pattern, pattern)) return rule.action;
  }
  return 'ask';
}

/** Strictest decision over every pattern of one request. */
export function evaluatePatterns(ruleset: Ruleset, permission: string, patterns: readonly string[]): PermissionAction {
  let result: PermissionAction = 'allow';
  for (const pattern of patterns.length ? patterns : ['*']) {
    result = stricter(result, evaluateRule(ruleset, permission, pattern));
    if (result === 'deny') break;
  }
  return result;
}

/** Strictest decision across a chain of rulesets (a session's own, then each ancestor's). */
export function evaluateChain(chain: readonly Ruleset[], permission: string, patterns: readonly string[]): PermissionAction {
  let result: PermissionAction = 'allow';
  for (const ruleset of chain) {
    result = stricter(result, evaluatePatterns(ruleset, permission, patterns));
    if (result === 'deny') break;
  }
  return result;
}

/**
 * True when a ruleset denies a permission outright (its last rule for it is `*: deny` and
 * nothing more specific follows), so the tools behind it can be left out of the model's
 * tool list instead of failing on every call.
 */
export function deniesEntirely(ruleset: Ruleset, permission: string): boolean {
  for (let i = ruleset.length - 1; i >= 0; i--) {
    const rule = ruleset[i]!;
    if (!wildcardMatch(rule.permission, permission)) continue;
    if (rule.pattern !== '*') return false;
    return rule.action === 'deny';
  }
  return false;
}

/** Which permission key governs a tool: file-changing tools share `edit`. */
export function permissionKeyOf(toolName: string): string {
  if (toolName === 'write' || toolName === 'edit') return 'edit';
  return toolName;
}
