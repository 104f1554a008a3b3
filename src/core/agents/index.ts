// The agent registry (DESIGN §4). Later sources override earlier ones by name: the
// package's built-ins → the user's config dir → the project's `.opencode/` folders →
// `.claude/agents/` → the config's `agent` key. A broken file never stops the program: it
// is skipped with a warning naming the file and the reason.
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { projectConfigDirs } from '../config/load.js';
import { sentence } from '../errors.js';
import { markdownFiles } from '../markdown-folder.js';
import { applyFields, skeleton } from './build.js';
import type { AgentDefinition } from './definition.js';
import { parseAgentMarkdown } from './markdown.js';
import type { AgentConfigEntry, AgentMode } from './schema.js';
import { unknownToolsWarning } from './tools.js';

export type { AgentDefinition } from './definition.js';
export { TOOL_NAMES, selectTools, toolName } from './tools.js';
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

export interface AgentWarning {
  /** The file path, or `config`. */
  source: string;
  message: string;
}

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

  const seen = new Set<string>();
  for (const folder of agentFolders(opts)) {
    const dir = resolve(folder.dir);
    if (seen.has(dir)) continue;
    seen.add(dir);
    for (const file of markdownFiles(dir, (message) => warnings.push({ source: dir, message: `agent ${message}` }))) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        warnings.push({ source: file, message: `skipped: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}).` });
        continue;
      }
      const parsed = parseAgentMarkdown(text, { file, fallbackName: basename(file).replace(/\.md$/i, ''), defaultMode: folder.defaultMode });
      if (!parsed.ok) {
        warnings.push({ source: file, message: `skipped: ${sentence(parsed.reason)}` });
        continue;
      }
      for (const message of parsed.warnings) warnings.push({ source: file, message });
      agents.set(parsed.agent.name, parsed.agent);
    }
  }

  for (const [name, entry] of Object.entries(opts.configAgents ?? {})) {
    const base = agents.get(name) ?? skeleton(name, 'all', 'config');
    const { agent, unknownTools } = applyFields(base, entry);
    agent.name = name;
    if (unknownTools.length > 0) warnings.push({ source: 'config', message: `agent "${name}": ${unknownToolsWarning(unknownTools)}` });
    agents.set(name, agent);
  }

  return { agents, warnings };
}
