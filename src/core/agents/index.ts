// The agent registry (DESIGN §4). Later sources override earlier ones by name: the
// package's built-ins → the user's config dir → the project's `.opencode/` folders →
// `.claude/agents/` → the config's `agent` key. A broken file never stops the program: it
// is skipped with a warning naming the file and the reason.
import { basename, join } from 'node:path';
import { projectConfigDirs } from '../config/load.js';
import type { PeerUserDirs } from '../config/paths.js';
import { readMarkdownFolders, type SourceWarning } from '../markdown-folder.js';
import { applyFields, skeleton } from './build.js';
import { cachedBuiltinAgent } from './builtin-cache.js';
import type { AgentDefinition } from './definition.js';
import { parseAgentMarkdown } from './markdown.js';
import type { ProjectNarrowing } from '../trust/narrow.js';
import { unknownToolsWarning } from './tools.js';
import { agentConfigEntrySchema, type AgentConfigEntry, type AgentMode } from './schema.js';

export type { AgentDefinition } from './definition.js';
export { TOOL_NAMES, allowlistMatches, allowlistPattern, selectTools, toolName } from './tools.js';
export { parseAgentMarkdown, type ParsedAgentFile } from './markdown.js';

export interface LoadAgentsOptions {
  /** The package's `agents/` folder. */
  builtinDir: string;
  /** The user's config dir; its `agents/` subfolder is read. */
  configDir: string;
  /** The user's Claude Code and OpenCode folders (`~/.claude/agents`, `~/.config/opencode/agent(s)`), read before ours. */
  peerDirs?: PeerUserDirs | undefined;
  cwd: string;
  /** The config's `agent` key (the user's config, and a trusted project's). */
  configAgents?: Record<string, AgentConfigEntry> | undefined;
  /**
   * Given when the project is not trusted (DESIGN §15): project agent files, the project
   * config's `agent` entries and its permission rules go through it and can only narrow.
   */
  narrowing?: ProjectNarrowing | undefined;
  /** Names of tools a program added (the library's in-process tools), which `tools` lists may name. */
  extraTools?: readonly string[] | undefined;
  /** `--agents '<json>'` (agents/session-flag.ts): applied last; a new name is a sub-agent unless it says otherwise. */
  sessionAgents?: Record<string, AgentConfigEntry> | undefined;
}

export interface AgentWarning extends SourceWarning {
  /** Set on an agent file's "unknown tools" warning: the names, as written, so a front end can sum many files up. */
  unknownTools?: string[];
}

export interface LoadedAgents {
  agents: Map<string, AgentDefinition>;
  warnings: AgentWarning[];
}

/** Who wrote a folder's files: the package, the user, or whoever wrote the repository. */
type Origin = 'builtin' | 'user' | 'project';

interface AgentFolder {
  dir: string;
  defaultMode: AgentMode;
  origin: Origin;
  /** Claude Code's folder: its agents are sub-agents and may not take a primary agent's name. */
  claude?: boolean;
}

/** The folders to read, lowest precedence first. */
export function agentFolders(opts: Pick<LoadAgentsOptions, 'builtinDir' | 'configDir' | 'cwd' | 'peerDirs'>): AgentFolder[] {
  // Nearer project folders override farther ones, from the git root down to cwd.
  const projectDirs = projectConfigDirs(opts.cwd);
  const peers = opts.peerDirs;
  return [
    { dir: opts.builtinDir, defaultMode: 'all', origin: 'builtin' },
    ...(peers
      ? [
          { dir: join(peers.opencode, 'agent'), defaultMode: 'all', origin: 'user' } satisfies AgentFolder,
          { dir: join(peers.opencode, 'agents'), defaultMode: 'all', origin: 'user' } satisfies AgentFolder,
          { dir: join(peers.claude, 'agents'), defaultMode: 'subagent', origin: 'user', claude: true } satisfies AgentFolder,
        ]
      : []),
    { dir: join(opts.configDir, 'agents'), defaultMode: 'all', origin: 'user' },
    ...projectDirs.flatMap((d): AgentFolder[] => [
      { dir: join(d, '.opencode', 'agents'), defaultMode: 'all', origin: 'project' },
      { dir: join(d, '.opencode', 'agent'), defaultMode: 'all', origin: 'project' },
    ]),
    // Claude Code agents exist to be delegated to, so they are sub-agents unless they say otherwise.
    ...projectDirs.map((d): AgentFolder => ({ dir: join(d, '.claude', 'agents'), defaultMode: 'subagent', origin: 'project', claude: true })),
  ];
}

/** Said of a Claude Code sub-agent file with no `description`, which the model picks sub-agents by. */
export const NO_DESCRIPTION_WARNING = 'has no "description", so the model is not told when to use this sub-agent (Claude Code skips such a file); add one to the front matter.';

/** The `source` of agents defined by `--agents`. */
export const SESSION_AGENTS_SOURCE = '--agents';

/** The suffix a Claude Code sub-agent gets when its name is a primary agent's (`build` → `build-claude`). */
export const CLAUDE_RENAME_SUFFIX = '-claude';

export function loadAgents(opts: LoadAgentsOptions): LoadedAgents {
  const agents = new Map<string, AgentDefinition>();
  /** The latest definition of each name that a trusted source wrote: project files may only narrow it. */
  const trusted = new Map<string, AgentDefinition>();
  const warnings: AgentWarning[] = [];
  const narrowing = opts.narrowing;

  readMarkdownFolders(
    agentFolders(opts),
    (folder) => folder.dir,
    'agent',
    (text, file, folder) => {
      // Tools a program added could change how a tools list reads, so only a plain start uses the build's parse.
      const cached = folder.origin === 'builtin' && !opts.extraTools?.length ? cachedBuiltinAgent(basename(file), text, folder.defaultMode, file) : undefined;
      if (cached) return { ok: true, value: { agent: cached, folder, file }, warnings: [] };
      const parsed = parseAgentMarkdown(text, { file, fallbackName: basename(file).replace(/\.md$/i, ''), defaultMode: folder.defaultMode, extraTools: opts.extraTools });
      if (!parsed.ok) return parsed;
      // Pushed here rather than returned, to keep the names with the message (same order as before the file's other warnings).
      if (parsed.unknownTools.length > 0) warnings.push({ source: file, message: unknownToolsWarning(parsed.unknownTools), unknownTools: parsed.unknownTools });
      // Claude Code skips a sub-agent file without a description; here it loads, and says why it may never be chosen.
      const undescribed = folder.claude && parsed.agent.description.trim() === '' ? [NO_DESCRIPTION_WARNING] : [];
      return { ok: true, value: { agent: parsed.agent, folder, file }, warnings: [...parsed.warnings, ...undescribed] };
    },
    ({ agent: parsed, folder, file }) => {
      let agent = parsed;
      const existing = agents.get(agent.name);
      // A Claude Code sub-agent called `build` would demote the primary and break every run.
      if (folder.claude && agent.mode === 'subagent' && existing?.mode === 'primary') {
        const renamed = `${agent.name}${CLAUDE_RENAME_SUFFIX}`;
        warnings.push({ source: file, message: `"${agent.name}" is a primary agent; this Claude Code sub-agent loads as "${renamed}".` });
        agent = { ...agent, name: renamed };
      }
      if (folder.origin === 'project' && narrowing) {
        agent = narrowing.agent({ candidate: agent, trusted: trusted.get(agent.name), file });
      } else {
        trusted.set(agent.name, agent);
      }
      agents.set(agent.name, agent);
    },
    warnings,
  );

  const applyEntry = (name: string, entry: AgentConfigEntry, file: string | undefined, fresh: AgentDefinition = skeleton(name, 'all', 'config')): void => {
    const before = agents.get(name);
    const result = applyFields(before ?? fresh, entry, opts.extraTools);
    const applied = result.agent;
    applied.name = name;
    const messages = [...(result.unknownTools.length > 0 ? [unknownToolsWarning(result.unknownTools)] : []), ...result.warnings];
    for (const message of messages) warnings.push({ source: file ?? fresh.source, message: `agent "${name}": ${message}` });
    const agent = file && narrowing ? narrowing.agent({ candidate: applied, before, trusted: trusted.get(name), file }) : applied;
    if (!file) trusted.set(name, agent);
    agents.set(name, agent);
  };
  for (const [name, entry] of Object.entries(opts.configAgents ?? {})) applyEntry(name, entry, undefined);
  if (narrowing) {
    for (const [name, { entry: raw, file }] of narrowing.agentEntries) {
      // Validated with its file already; parsed again here only to get its type.
      const entry = agentConfigEntrySchema().safeParse(raw);
      if (entry.success) applyEntry(name, entry.data, file);
    }
    // The project config's own rules narrow every agent.
    if (narrowing.restrictions.length > 0) {
      for (const [name, agent] of agents) agents.set(name, { ...agent, restrictions: [...narrowing.restrictions, ...(agent.restrictions ?? [])] });
    }
  }

  // The user typed these for this start: trusted, and last, as Claude Code ranks its flag above project files.
  for (const [name, entry] of Object.entries(opts.sessionAgents ?? {})) applyEntry(name, entry, undefined, skeleton(name, 'subagent', SESSION_AGENTS_SOURCE));

  // Claude Code's name for a copy of the caller (subagents/fork.ts): `task` cannot reach an agent of that name.
  const shadowed = agents.get('fork');
  if (shadowed && shadowed.mode !== 'primary' && !shadowed.disable) {
    warnings.push({ source: shadowed.source, message: 'agent "fork": subagent_type "fork" starts a fork of the calling session, so this agent cannot be started as a sub-agent; rename it.' });
  }
  return { agents, warnings };
}
