// The start-up every front end shares (the CLI, the editor protocol, the library): the
// configuration, agents, commands, MCP servers and sandbox of the project around a folder,
// and the session store. Problems with any of them surface here as one-line errors (thrown
// ConfigErrors) or as warning lines the front end shows its own way: nothing here prints or
// prompts. This is also where project trust is decided (DESIGN §15): the loaders get a
// narrowing for an untrusted project, and what it cut becomes one notice line.
import { isAbsolute, join } from 'node:path';
import { instructionFileWarnings } from './agent/system-prompt.js';
import { loadAgents, type AgentDefinition, type AgentWarning, type LoadAgentsOptions } from './agents/index.js';
import type { AgentConfigEntry } from './agents/schema.js';
import { terminalSafe } from './text/terminal-safe.js';
import { loadCommands, type CommandDefinition } from './commands/index.js';
import { loadConfig } from './config/load.js';
import { configDir, dataDir, peerUserDirs, type PeerUserDirs } from './config/paths.js';
import type { Config } from './config/sections.js';
import { mcpJsonServerNames, readMcpJson, MCP_JSON, type McpServerConfig } from './mcp/config.js';
import type { SourceWarning } from './markdown-folder.js';
import { loadHookSources, type HookSet } from './hooks/index.js';
import { findProject } from './project.js';
import { prepareSandbox, type SandboxHost, type SandboxMode } from './sandbox/index.js';
import { SessionStore } from './store/index.js';
import { blankCredentialsInEnviron } from './tools/blank-environ.js';
import { providerKeys, SECRET_VARIABLES } from './tools/child-env.js';
import { narrowingFor, resolveTrust, type ProjectTrust } from './trust/index.js';
import { loadClaudeSettings } from './claude-settings/index.js';
import type { PermissionMode } from './permission/modes.js';
import type { Rule } from './permission/rules.js';
import { addSkillCommands, loadSkills, SKILL_SKIPPED, type SkillCatalogue } from './skills/index.js';
import { packageRoot } from './package-root.js';
import { unknownModelWarning } from './agents/model-check.js';

/** Project trust as the UI needs it: what an untrusted project had ignored, and what changed since it was trusted. */
export interface TrustState extends ProjectTrust {
  /** What was ignored, e.g. `provider.anthropic.baseURL (.opencoderc.json)`; empty when trusted or nothing was. */
  ignored: readonly string[];
  /** The control files changed since the user trusted the project, e.g. `.opencoderc.json (changed)`; empty when none (or never trusted). */
  changedFiles: readonly string[];
  /** The one line naming what was ignored and how to trust; undefined when nothing was. */
  notice?: string;
}

export interface ProjectContext {
  config: Config;
  configSources: string[];
  agents: Map<string, AgentDefinition>;
  commands: Map<string, CommandDefinition>;
  trust: TrustState;
  /** The user's Claude Code and OpenCode folders (agents, commands and instructions live there too). */
  peerDirs: PeerUserDirs;
  /** MCP servers: the project's `.mcp.json` (trusted projects only), then the config's `mcp` key by name. */
  mcp: Record<string, McpServerConfig>;
  /** Lines for stderr (trust.notice is separate: the UI shows it its own way). */
  warnings: string[];
  /** Every warning from loading the agents, in full: `opencode-ink agents` shows them. */
  agentWarnings: AgentWarning[];
  /** Sandboxing of commands (DESIGN §19); its unavailability is one of `warnings`. */
  sandbox: SandboxHost;
  /** Claude Code's hooks from every source trust allows (DESIGN §20); their problems are among `warnings`. */
  hooks: HookSet;
  /** Skills (DESIGN §20), names and descriptions terminal-safe; their load warnings are summed up in `warnings`. */
  skills: SkillCatalogue;
  /** Claude Code's settings files' allow lists (their ask/deny lists are on every agent as restrictions). */
  permissionRules: Rule[];
  /** Claude Code's settings files' `env`, for the commands tools run. */
  toolEnv: Record<string, string>;
  /** The mode sessions start in (DESIGN §26): the config's `permission_mode`, else Claude Code's `permissions.defaultMode`. */
  permissionMode: PermissionMode;
}

/** A loaded project with the session store open: what a front end runs an engine from. */
export interface OpenedProject extends ProjectContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  store: SessionStore;
  /** Loads the configuration, agents and commands again (after the user trusted the project); the store stays. */
  reload(): OpenedProject;
}

export interface LoadOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `run --trust`: trust the project for this process only. */
  trustOnce?: boolean;
  /** `--sandbox <mode>`: replaces `sandbox.mode` of the configuration. */
  sandboxMode?: SandboxMode | undefined;
  /** Agents a program defines (the library's `agents`): applied last, like the user's own config's `agent` key. */
  agents?: Readonly<Record<string, AgentConfigEntry>> | undefined;
  /** Names of tools a program added (the library's in-process tools), which agents' `tools` lists may name. */
  extraTools?: readonly string[] | undefined;
  /** `--agents '<json>'`: sub-agents for this start (agents/session-flag.ts). */
  sessionAgents?: LoadAgentsOptions['sessionAgents'];
}

/** Configuration, agents and commands of the project around `cwd`, narrowed unless it is trusted. */
export function loadProject({ cwd, env, trustOnce, sandboxMode, agents: programAgents, extraTools, sessionAgents }: LoadOptions): ProjectContext {
  const trust = resolveTrust(cwd, env, trustOnce ?? false);
  const narrowing = narrowingFor(trust);
  const { config, sources } = loadConfig({ cwd, env, narrowing });
  const { agents, warnings } = loadAgents({
    builtinDir: join(packageRoot(), 'agents'),
    configDir: configDir(env),
    peerDirs: peerUserDirs(env),
    cwd,
    configAgents: programAgents ? { ...config.agent, ...programAgents } : config.agent,
    narrowing,
    extraTools,
    sessionAgents,
  });
  // A bad `model:` would otherwise fail only when that agent runs.
  for (const agent of agents.values()) {
    const problem = agent.model === undefined ? undefined : unknownModelWarning(agent.model, config.provider);
    if (problem) warnings.push({ source: agent.source, message: isAbsolute(agent.source) ? problem : `agent "${agent.name}": ${problem}` });
  }
  const commands = loadCommands({ configDir: configDir(env), peerDirs: peerUserDirs(env), cwd, configCommands: config.command, narrowing });
  for (const command of commands.commands.values()) {
    const problem = command.model === undefined ? undefined : unknownModelWarning(command.model, config.provider);
    if (problem) commands.warnings.push({ source: command.source, message: command.source === 'config' ? `command "${command.name}": ${problem}` : problem });
  }
  const loadedSkills = withModelWarnings(loadSkills({ configDir: configDir(env), peerDirs: peerUserDirs(env), cwd }), config.provider);
  // An untrusted project's skills keep their instructions and lose what `allowed-tools` would let run unasked.
  const skills = narrowing
    ? { ...loadedSkills, skills: new Map([...loadedSkills.skills].map(([name, skill]) => [name, narrowing.skill(skill)])) }
    : loadedSkills;
  const skillCommandWarnings = addSkillCommands(skills.skills.values(), commands.commands, narrowing);
  // Read before the notice is made: an untrusted project's allow lists and env are named in it.
  const settings = loadClaudeSettings({ projectRoot: trust.folder, peerDirs: peerUserDirs(env), narrowing });
  if (settings.restrictions.length > 0) {
    for (const [name, agent] of agents) agents.set(name, { ...agent, restrictions: [...(agent.restrictions ?? []), ...settings.restrictions] });
  }
  // `.mcp.json` starts programs: read only for a trusted project, otherwise named as ignored.
  let mcpJson: ReturnType<typeof readMcpJson> = { servers: {}, warnings: [] };
  if (narrowing) narrowing.noteMcpJsonServers(join(trust.folder, MCP_JSON), mcpJsonServerNames(trust.folder));
  else mcpJson = readMcpJson(trust.folder, env);
  const sandbox = prepareSandbox({
    config: config.sandbox,
    cliMode: sandboxMode,
    tighten: narrowing ? (settings) => narrowing.tightenSandbox(settings) : undefined,
    env,
    cwd,
  });
  // Hooks start programs: a project's own settings files count only once it is trusted.
  const hooks = loadHookSources({
    configHooks: config.hooks,
    configSources: sources,
    projectRoot: trust.folder,
    claudeUserDir: peerUserDirs(env).claude,
    narrowing,
  });
  if (hooks.disabled) {
    for (const [name, agent] of agents) {
      if (!agent.hooks) continue;
      const { hooks: _off, ...rest } = agent;
      agents.set(name, rest);
    }
  }
  const notice = narrowing?.notice();
  const mcp = { ...mcpJson.servers, ...config.mcp };
  // A name in an agent's `mcpServers` that no configuration defines gives it nothing: said, not dropped silently.
  for (const agent of agents.values()) {
    for (const name of agent.mcpServerNames ?? []) {
      if (mcp[name] !== undefined) continue;
      warnings.push({ source: agent.source, message: `agent "${agent.name}": "mcpServers" names the server "${name}", which no configuration defines (the "mcp" key of .opencoderc.json, or a trusted project's .mcp.json); it is left out.` });
    }
  }
  // Everything below reaches a terminal (stderr, the TUI, an editor's log) and much of it
  // was written by the repository: file and key names, agent and command names and
  // descriptions. It is made terminal-safe here, the one place all front ends load through.
  return {
    config,
    configSources: sources,
    agents: displaySafe(agents, (agent) => ({ ...agent, name: terminalSafe(agent.name), description: terminalSafe(agent.description) })),
    commands: displaySafe(commands.commands, (command) => ({
      ...command,
      name: terminalSafe(command.name),
      ...(command.description !== undefined ? { description: terminalSafe(command.description) } : {}),
      ...(command.argumentHint !== undefined ? { argumentHint: terminalSafe(command.argumentHint) } : {}),
    })),
    trust: {
      ...trust,
      changed: trust.changed.map((change) => ({ ...change, path: terminalSafe(change.path) })),
      ignored: (narrowing?.ignored ?? []).map(terminalSafe),
      changedFiles: (narrowing?.changed ?? []).map(terminalSafe),
      ...(notice ? { notice: terminalSafe(notice) } : {}),
    },
    mcp,
    peerDirs: peerUserDirs(env),
    warnings: [
      ...(trust.warning ? [trust.warning] : []),
      ...mcpJson.warnings.map((w) => `Warning: ${w}`),
      ...warningLines(warnings, [...commands.warnings, ...skillCommandWarnings, ...settings.warnings]),
      ...skillWarningLines(skills),
      ...instructionFileWarnings(findProject(cwd).root, peerUserDirs(env)).map((w) => `Warning: ${w}`),
      ...(sandbox.notice ? [sandbox.notice] : []),
      ...hooks.warnings,
    ].map(terminalSafe),
    agentWarnings: warnings.map((w) => ({ ...w, source: terminalSafe(w.source), message: terminalSafe(w.message) })),
    sandbox,
    hooks: hooks.hooks,
    skills: {
      skills: displaySafe(skills.skills, (skill) => ({ ...skill, name: terminalSafe(skill.name), description: terminalSafe(skill.description) })),
      warnings: skills.warnings.map((w) => ({ source: terminalSafe(w.source), message: terminalSafe(w.message) })),
    },
    permissionRules: settings.allow,
    toolEnv: settings.env,
    permissionMode: config.permission_mode ?? settings.defaultMode ?? 'default',
  };
}

/** The catalogue with a warning for each skill whose `model:` names no model that can run. */
function withModelWarnings(catalogue: SkillCatalogue, providers: Config['provider']): SkillCatalogue {
  const found = [...catalogue.skills.values()].flatMap((skill) => {
    const problem = skill.model === undefined ? undefined : unknownModelWarning(skill.model, providers);
    return problem ? [{ source: skill.file, message: `skill "${skill.name}": ${problem}` }] : [];
  });
  return found.length === 0 ? catalogue : { ...catalogue, warnings: [...catalogue.warnings, ...found] };
}

/**
 * A broken skill gets its own line; several are summed up in one (a copied collection can
 * hold many), naming a few files and pointing at `/skills`, which lists every reason.
 */
function skillWarningLines(skills: SkillCatalogue): string[] {
  // Skills that loaded but carry a field not applied as written: one line for them all.
  const notes = skills.warnings.filter((w) => !w.message.startsWith(SKILL_SKIPPED));
  const noteLines = notes.length === 0 ? [] : notes.length === 1 ? [`Warning: ${notes[0]!.source}: ${notes[0]!.message}`] : [`Warning: ${notes.length} skill fields are not applied as written (first: ${notes[0]!.source}: ${notes[0]!.message}) /skills in the TUI lists them all.`];
  const [first, ...rest] = skills.warnings.filter((w) => w.message.startsWith(SKILL_SKIPPED));
  if (!first) return noteLines;
  if (rest.length === 0) return [`Warning: ${first.source}: ${first.message}`, ...noteLines];
  const skipped = [first, ...rest];
  const files = skipped.slice(0, SUMMARY_EXAMPLES).map((w) => w.source);
  const more = skipped.length > files.length ? `, and ${skipped.length - files.length} more` : '';
  return [`Warning: ${skipped.length} skills could not be loaded (${files.join(', ')}${more}); first: ${first.message} /skills in the TUI lists every reason.`, ...noteLines];
}

/** A name-keyed map with each entry (and so its key) passed through `safe`. */
function displaySafe<T extends { name: string }>(map: ReadonlyMap<string, T>, safe: (item: T) => T): Map<string, T> {
  return new Map([...map.values()].map((item) => {
    const shown = safe(item);
    return [shown.name, shown];
  }));
}

/** How many unknown tool names the summary line gives as examples. */
const SUMMARY_EXAMPLES = 3;

/**
 * One line per warning, except that agent files naming tools we lack (a folder of Claude Code
 * agents names WebSearch, NotebookEdit, … in most files) become one line pointing at
 * `opencode-ink agents`, which lists them in full. A broken file still gets its own line.
 */
function warningLines(agentWarnings: readonly AgentWarning[], others: readonly SourceWarning[]): string[] {
  const line = (w: SourceWarning): string => `Warning: ${w.source}: ${w.message}`;
  const unknown = agentWarnings.filter((w) => w.unknownTools);
  const notes = agentWarnings.filter((w) => !w.unknownTools && FIELD_NOTE.test(w.message));
  const summed = new Set<AgentWarning>([...(unknown.length < 2 ? [] : unknown), ...(new Set(notes.map((w) => w.source)).size < 2 ? [] : notes)]);
  const summaries: string[] = [];
  if (unknown.length >= 2) {
    const counts = new Map<string, number>();
    for (const w of unknown) for (const name of new Set(w.unknownTools)) counts.set(name, (counts.get(name) ?? 0) + 1);
    summaries.push(`Warning: ${unknown.length} agent files name tools this program does not have (e.g. ${examples(counts).join(', ')}); see \`opencode-ink agents\`.`);
  }
  if (notes.length > 0 && summed.has(notes[0]!)) {
    // A folder of Claude Code agents may carry `effort:` or keys of other tools in many files: one line, the details in `agents`.
    const counts = new Map<string, number>();
    for (const w of notes) {
      const match = FIELD_NOTE.exec(w.message);
      const field = match?.[1] ?? match?.[2];
      if (field) counts.set(field, (counts.get(field) ?? 0) + 1);
    }
    const files = new Set(notes.map((w) => w.source)).size;
    summaries.push(`Warning: ${files} agent files carry fields this program does not apply (e.g. ${examples(counts).join(', ')}); see \`opencode-ink agents\`.`);
  }
  return [...summaries, ...agentWarnings.filter((w) => !summed.has(w)).map(line), ...others.map(line)];
}

/** A warning about one field of an agent file that is read but not applied; group 1 or 2 is the field. */
const FIELD_NOTE = /^(?:ignoring (?:unknown field |the .*? of )?"([A-Za-z0-9_-]+)|"([A-Za-z0-9_-]+)[^"]*" is not applied)/;

/** The names most files use first (those are the ones worth recognising), safe for a terminal and short. */
function examples(counts: ReadonlyMap<string, number>): string[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, SUMMARY_EXAMPLES)
    // Names come from project files: no escape sequences, and no line long enough to bury the rest.
    .map(([name]) => terminalSafe(name).replace(/\s+/g, ' ').slice(0, 40));
}

/**
 * Blanks the credentials this configuration uses in the process's initial environment block
 * (tools/blank-environ.ts), so commands the model runs cannot read them from
 * /proc/<our pid>/environ. Only for the real process environment: `env` may be a test's own.
 */
export function hideCredentials(config: Config, env: NodeJS.ProcessEnv): void {
  if (env !== process.env) return;
  blankCredentialsInEnviron(SECRET_VARIABLES, providerKeys(config.provider));
}

/** The project around `opts.cwd` and the session store in the data dir, tidied of what dead processes left. */
export function openProject(opts: LoadOptions): OpenedProject {
  const project = loadProject(opts);
  const store = SessionStore.open(dataDir(opts.env));
  // A session still marked running belongs to a process that died mid-turn.
  store.markInterrupted();
  // Sessions opened and never prompted would top the listings and be what `-c` reopens.
  store.removeEmptyRoots();
  const context = (parts: ProjectContext): OpenedProject => {
    hideCredentials(parts.config, opts.env);
    return withStore(parts);
  };
  const withStore = (parts: ProjectContext): OpenedProject => ({
    ...parts,
    cwd: opts.cwd,
    env: opts.env,
    store,
    reload: () => context(loadProject(opts)),
  });
  return context(project);
}
