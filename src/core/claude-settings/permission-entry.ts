// One entry of a Claude Code settings file's `permissions.allow/ask/deny` list, as our
// permission key and patterns. The forms Claude Code documents:
// - a bare tool name: the whole tool (`Bash`, `Read`, `WebFetch`, `Skill`, `mcp__github`,
//   `mcp__github__create_issue`, `mcp__github__*`);
// - `Bash(npm run test:*)` (a prefix, at a word boundary), `Bash(git status)` (exactly);
// - `Read(./secrets/**)`, `Edit(src/**)`, `Write(//tmp/x)`, `Edit(~/notes/*)`: gitignore-style
//   paths, relative to the working directory (our `*` also crosses `/`);
// - `WebFetch(domain:example.com)`; `Task(explore)` / `Agent(explore)`; `Skill(pdf)`.
// Anything else — tools we lack, scopes we cannot express — is undefined, for the caller to
// name in a warning; it is never guessed at, since a guessed `deny` may deny nothing.
import { editPattern, isWholeScope, scopedKey, scopePatterns, splitScope, toolName } from '../agents/tools.js';
import { permissionKeyOf } from '../permission/rules.js';

export interface EntryRule {
  /** The permission key the rules go under: `bash`, `edit`, `read`, `webfetch`, `task`, `skill`, an MCP tool name. */
  permission: string;
  patterns: string[];
}

const MCP_PREFIX = 'mcp__';

function mcpRule(name: string, scope: string | undefined): EntryRule | undefined {
  if (scope !== undefined && !isWholeScope(scope)) return undefined;
  // `mcp__github` (a whole server) is every tool of that server.
  const permission = name.includes('__', MCP_PREFIX.length) ? name : `${name}__*`;
  return /^mcp__[A-Za-z0-9_*-]+$/.test(permission) ? { permission, patterns: ['*'] } : undefined;
}

export function settingsEntryRule(entry: string): EntryRule | undefined {
  const { tool, scope } = splitScope(entry);
  if (tool.startsWith(MCP_PREFIX)) return mcpRule(tool, scope);
  const name = toolName(tool);
  if (!name) return undefined;
  const permission = permissionKeyOf(name);
  if (scope === undefined || isWholeScope(scope)) return { permission, patterns: ['*'] };
  if (name === 'read') return { permission, patterns: [editPattern(scope)] };
  if (name === 'skill') return /^[A-Za-z0-9._*-]+$/.test(scope) ? { permission, patterns: [scope] } : undefined;
  const key = scopedKey(name);
  const patterns = key ? scopePatterns(key, scope) : undefined;
  return patterns && patterns.length > 0 ? { permission, patterns } : undefined;
}
