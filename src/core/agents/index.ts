// The agent registry (DESIGN §4). Later sources override earlier ones by name: the
// package's built-ins → the user's config dir → the project's `.opencode/` folders →
// `.claude/agents/` → the config's `agent` key. A broken file never stops the program: it
// is skipped with a warning naming the file and the reason.
import { basename, join } from 'node:path';
import { projectConfigDirs } from '../config/load.js';
import { readMarkdownFolders, type SourceWarning } from '../markdown-folder.js';
import { applyFields, skeleton } from './build.js';
import type { AgentDefinition } from './definition.js';
import { parseAgentMarkdown } from './markdown.js';
import type { AgentConfigEntry, AgentMode } from './schema.js';

export type { AgentDefinition } from './definition.js';
export { TOOL_NAMES, allowlistMatches, allowlistPattern, selectTools, toolName } from './tools.js';
export { parseAgentMarkdown, type ParsedAgentFile } from './markdown.js';

export interface LoadAgentsOptions {
  /** The package's `agents/` folder. */
  builtinDir: string;
  /** The user's config dir; its `agents/` subfolder is read. */
  configDir: string;
  cwd: string;
  /** The config's `agent` key. */
  configAgents?: Record<string, AgentConfigEntry> | undefined;
}

export type AgentWarning = SourceWarning;

export interface LoadedAgents {
  agents: Map<string, AgentDefinition>;
  warnings: AgentWarning[];
}

interface AgentFolder {
  dir: string;
  defaultMode: AgentMode;
}

/** The folders to read, lowest precedence first. */
export function agentFolders(opts: Pick<LoadAgentsOptions, 'builtinDir' | 'configDir' | 'cwd'>): AgentFolder[] {
  // Nearer project folders override farther ones, from the git root down to cwd.
  const projectDirs = projectConfigDirs(opts.cwd);
  return [
    { dir: opts.builtinDir, defaultMode: 'all' },
    { dir: join(opts.configDir, 'agents'), defaultMode: 'all' },
    ...projectDirs.flatMap((d): AgentFolder[] => [
      { dir: join(d, '.opencode', 'agents'), defaultMode: 'all' },
      { dir: join(d, '.opencode', 'agent'), defaultMode: 'all' },
    ]),
    // Claude Code agents exist to be delegated to, so they are sub-agents unless they say otherwise.
    ...projectDirs.map((d): AgentFolder => ({ dir: join(d, '.claude', 'agents'), defaultMode: 'subagent' })),
  ];
}

export function loadAgents(opts: LoadAgentsOptions): LoadedAgents {
  const agents = new Map<string, AgentDefinition>();
  const warnings: AgentWarning[] = [];

  readMarkdownFolders(
    agentFolders(opts),
    (folder) => folder.dir,
    'agent',
    (text, file, folder) => {
      const parsed = parseAgentMarkdown(text, { file, fallbackName: basename(file).replace(/\.md$/i, ''), defaultMode: folder.defaultMode });
      return parsed.ok ? { ok: true, value: parsed.agent, warnings: parsed.warnings } : parsed;
    },
    (agent) => agents.set(agent.name, agent),
    warnings,
  );

  for (const [name, entry] of Object.entries(opts.configAgents ?? {})) {
    const base = agents.get(name) ?? skeleton(name, 'all', 'config');
    const applied = applyFields(base, entry);
    const agent = applied.agent;
    agent.name = name;
    for (const message of applied.warnings) warnings.push({ source: 'config', message: `agent "${name}": ${message}` });
    agents.set(name, agent);
  }

  return { agents, warnings };
}
