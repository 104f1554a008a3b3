// Tool names in agent files, mapped to ours. Claude Code files name tools in PascalCase
// (`Read, Grep`, sometimes with a rule like `Bash(git:*)`); OpenCode files use our
// lowercase names in a `{ name: boolean }` map. Both must load unchanged.
import type { AgentToolsField } from './schema.js';

export const TOOL_NAMES = [
  'read',
  'write',
  'edit',
  'list',
  'glob',
  'grep',
  'bash',
  'webfetch',
  'todowrite',
  'todoread',
  'task',
  'ask_user',
] as const;

const ALIASES: Record<string, string> = {
  multiedit: 'edit',
  ls: 'list',
  agent: 'task',
  askuserquestion: 'ask_user',
};

/** Our name for a tool as written in an agent file, or undefined when we have no such tool. */
export function toolName(raw: string): string | undefined {
  // `Bash(git status:*)` restricts a tool to some commands; the tool itself is still meant.
  const bare = raw.trim().replace(/\(.*\)$/s, '').trim().toLowerCase();
  if ((TOOL_NAMES as readonly string[]).includes(bare)) return bare;
  return ALIASES[bare];
}

export interface ToolSelection {
  /** `tools` given as a list: exactly these. */
  allow?: string[];
  /** From a map: names set to false. */
  disable: string[];
  /** From a map: names set to true. */
  enable: string[];
  /** Names we do not know, as written. */
  unknown: string[];
}

/** Splits `Read, Bash(git add, git commit), Grep` on the commas outside parentheses. */
function splitList(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
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

export function selectTools(field: AgentToolsField): ToolSelection {
  const selection: ToolSelection = { disable: [], enable: [], unknown: [] };
  if (typeof field === 'string' || Array.isArray(field)) {
    const entries = typeof field === 'string' ? splitList(field) : field.map((e) => e.trim()).filter((e) => e.length > 0);
    // A blank `tools:` string and `*` both mean "no restriction", as in Claude Code.
    if ((typeof field === 'string' && entries.length === 0) || entries.includes('*')) return selection;
    const allow: string[] = [];
    for (const entry of entries) {
      const name = toolName(entry);
      if (name) allow.push(name);
      else selection.unknown.push(entry);
    }
    selection.allow = unique(allow);
    return selection;
  }
  for (const [entry, enabled] of Object.entries(field)) {
    const name = toolName(entry);
    if (!name) selection.unknown.push(entry);
    else (enabled ? selection.enable : selection.disable).push(name);
  }
  selection.enable = unique(selection.enable);
  selection.disable = unique(selection.disable);
  return selection;
}

export function unknownToolsWarning(unknown: readonly string[]): string {
  return `ignoring unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} (known tools: ${TOOL_NAMES.join(', ')}).`;
}
