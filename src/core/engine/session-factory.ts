// Opens live sessions. Contract: `open` turns a stored session row into the in-memory
// `LiveSession` a turn runs in — lease taken, agent and model chosen, permission rules chained
// onto the parent's, approvals shared per root, tools selected through the same gate for
// built-ins, `task`, `websearch` and MCP, system prompt built — and registers it in the shared
// `live` map, returning the one already there if any. It also owns the provider cache and
// brings a session's tool list up to date when MCP tools change, and gives each session its
// hooks (DESIGN §20), Notification included when a person is waited for. It runs no turns.
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { LiveSession } from '../agent/live-session.js';
import type { AgentDefinition } from '../agents/index.js';
import type { InteractionBroker } from '../broker.js';
import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { EventPayloads, EventType } from '../events.js';
import { claudeToolName, SessionHooks, withAgentHooks, type HookRunner } from '../hooks/index.js';
import { PermissionGate, TreeApprovals, type AutoApproval, type PermissionQuestion } from '../permission/gate.js';
import { effectiveMode, type PermissionMode } from '../permission/modes.js';
import { DEFAULT_RULES, evaluateChain, rulesFromConfig, type Rule, type Ruleset } from '../permission/rules.js';
import { findProject, type ProjectInfo } from '../project.js';
import { McpManager, type SessionMcpServers } from '../mcp/manager.js';
import { MCP_TOOL_PREFIX, sanitizeName } from '../mcp/names.js';
import { effortOnWire } from '../provider/effort.js';
import type { LiveSessions } from './live-sessions.js';
import { restrictionRulesets } from '../trust/narrow.js';
import { effectiveRunnerKind } from '../runner/config.js';
import { commandSandbox, serverSandbox, tightenSandbox, type RemoteCommandRunner, type SandboxHost } from '../sandbox/index.js';
import type { BackgroundShells } from '../shells/background-shells.js';
import { parseModelRef, providerFromConfig, resolveModelName } from '../provider/index.js';
import type { Provider } from '../provider/types.js';
import type { SessionRow } from '../store/index.js';
import {
  ASK_USER_TOOL,
  TASK_TOOL,
  askUserTool,
  childRoutes,
  createTaskTool,
  offeredSubagents,
  selectToolNames,
  type ForkShape,
  type SubagentSupervisor,
} from '../subagents/index.js';
import { BUILTIN_TOOLS } from '../tools/index.js';
import { createSendMessageTool } from '../team/send-message.js';
import { createWebsearchTool, WEBSEARCH_TOOL } from '../tools/websearch.js';
import { ToolError, type ChangeRecorder, type Tool } from '../tools/types.js';
import { FileViews } from '../workspace/file-views.js';
import { activeSkill, createSkillTool, findSkill, SKILL_TOOL, skillCalls, skillsForAgent, type SkillDefinition, type SkillRuns } from '../skills/index.js';
import type { EngineOptions } from '../engine.js';
import { join } from 'node:path';
import { configDir } from '../config/paths.js';
import { errorMessage } from '../errors.js';
import { effortModelWarning } from '../agents/build.js';
import { memoryPlace, memoryPromptSection, openMemoryFolder, USER_MEMORY_FOLDER } from '../agents/memory.js';
import { createMemoryTool, MEMORY_TOOL } from '../agents/memory-tool.js';
import type { MemoryScope } from '../agents/schema.js';

/** A root turn with no cap of its own still cannot loop forever. */
const ROOT_TURN_SAFETY_CAP = 500;

export interface SessionFactoryDeps {
  options: EngineOptions;
  project: ProjectInfo;
  tools: readonly Tool[];
  /** Sessions held in memory, shared with the engine and the turn scheduler. */
  live: LiveSessions;
  mcp: McpManager;
  broker: InteractionBroker;
  /** What this start knows about sandboxing commands (DESIGN §19). */
  sandbox: SandboxHost;
  /** Claude Code's hooks; undefined when none is configured. */
  hooks: HookRunner | undefined;
  /** Background commands of every session (DESIGN §23). */
  shells: BackgroundShells;
  /** Read lazily: the supervisor is built after the factory (it opens children through it). */
  supervisor: () => SubagentSupervisor;
  emitFor: <K extends EventType>(sessionId: string, agent: string, path: readonly string[], type: K, payload: EventPayloads[K]) => void;
  /** Records which project files a session's tools change (checkpoints, DESIGN §18). */
  changes: (session: { id: string; cwd: string; isChild: boolean }) => ChangeRecorder;
  /** Starts a main session's container (runner.for "all"); throws one sentence when no host can take it. */
  startContainer: (session: LiveSession) => Promise<RemoteCommandRunner>;
}

export class SessionFactory {
  private readonly approvals = new Map<string, TreeApprovals>();
  /** Each root session's permission mode once it was changed (DESIGN §26); the engine's default otherwise. */
  private readonly rootModes = new Map<string, PermissionMode>();
  /**
   * Each session's file views, kept by id rather than on the live session: a child released
   * from memory after its turn and resumed later (task `session_id`) still knows what it read.
   */
  private readonly fileViews = new Map<string, FileViews>();
  private readonly providers = new Map<string, Provider>();
  /** Rebuilds a session's tool list (when MCP tools appear or change), and the MCP version it was built at. */
  private readonly toolSelection = new WeakMap<LiveSession, { select: () => Tool[]; version: number }>();
  private mcpWarned = false;
  /**
   * Each live session's own MCP servers (its agent file's inline `mcpServers`): one set per
   * session, as Claude Code connects them per sub-agent run; stopped when the session leaves memory.
   */
  private readonly agentServers = new WeakMap<LiveSession, { manager: McpManager; warned: boolean }>();
  /** The own server sets not stopped yet, with the session and agent each belongs to (`/mcp` lists them). */
  private readonly openAgentServers = new Map<McpManager, { sessionId: string; agent: string }>();
  /** Warnings said once per engine (an agent's `effort` its model does not take, a server name clash). */
  private readonly warnedOnce = new Set<string>();

  constructor(private readonly deps: SessionFactoryDeps) {}

  /** Agents the user can talk to directly (Tab cycles these). */
  primaryAgents(): AgentDefinition[] {
    return [...this.deps.options.agents.values()].filter((a) => a.mode !== 'subagent' && !a.hidden);
  }

  primaryAgent(name: string): AgentDefinition {
    const agent = this.deps.options.agents.get(name);
    if (!agent || agent.mode === 'subagent') {
      const names = this.primaryAgents().map((a) => a.name);
      throw new ConfigError(`Unknown primary agent "${name}": expected one of ${names.join(', ')}.`);
    }
    return agent;
  }

  pickModel(explicit: string | undefined, agent: AgentDefinition): string {
    const fallback = resolveModelName(this.deps.options.config.model);
    if (explicit) return resolveModelName(explicit, fallback);
    if (agent.model) return resolveModelName(agent.model, fallback);
    return fallback;
  }

  provider(name: string): Provider {
    let provider = this.providers.get(name);
    if (!provider) {
      const options = this.deps.options;
      provider = options.providerFor ? options.providerFor(name) : providerFromConfig(name, options.config);
      this.providers.set(name, provider);
    }
    return provider;
  }

  /**
   * `agentName` runs the session as another agent than its own (a command's agent, for one turn).
   * `fork` opens a fork (subagents/fork.ts): its system prompt is the one given, and its tools are
   * the ones named, in that order — its caller's, so the request repeats the caller's prefix.
   * Its `task` tool stays even past max_depth (the supervisor refuses calls there): a tool list
   * that differs from the caller's would miss the whole cached prefix.
   */
  open(row: SessionRow, parent?: LiveSession, narrow?: readonly string[], agentName?: string, fork?: ForkShape): LiveSession {
    const { options, live, mcp } = this.deps;
    const existing = live.get(row.id);
    if (existing) return existing;
    // One writer per session across processes: a session another live process holds is
    // refused here, before anything is read into memory or written.
    options.store.leases.acquire(row.id);
    const agent = options.agents.get(agentName ?? row.agent) ?? this.primaryAgent(options.config.default_agent);
    const model = agentName && agent.model ? resolveModelName(agent.model, row.model) : row.model;
    const own = [this.rulesetFor(agent), ...restrictionRulesets(agent)];
    const chain = parent ? [...own, ...parent.gate.rulesets] : own;
    const path = parent ? [...parent.path, row.id] : [row.id];
    const depth = parent ? parent.depth + 1 : 0;
    // A child in its own worktree has that worktree as its project (AGENTS.md, the prompt's root).
    const project = row.cwd === options.cwd ? this.deps.project : findProject(row.cwd);
    // A child starts from its parent's sandbox; its agent may only tighten it.
    const sandboxSettings = tightenSandbox(parent?.sandboxSettings ?? this.deps.sandbox.settings, agent.sandbox, !agent.untrustedSandbox);
    const store = options.store;
    const settings = options.config.subagents;
    const emit = <K extends EventType>(type: K, payload: EventPayloads[K]) => this.deps.emitFor(row.id, agent.name, path, type, payload);
    // Read at every check: a mode changed mid-turn applies at once, to running children too.
    const modeChain = (): readonly PermissionMode[] => {
      const above = parent ? parent.gate.modeChain() : [this.rootMode(row.id)];
      return [effectiveMode(above[0]!, agent.permissionMode), ...above];
    };
    const onAuto = ({ mode, tool, callId, request, skill }: AutoApproval) => {
      emit('permission.auto', {
        mode,
        tool,
        subject: request.subject,
        permission: request.permission,
        patterns: request.patterns,
        call_id: callId,
        ...(request.file !== undefined ? { file: request.file } : {}),
        ...(skill !== undefined ? { skill } : {}),
      });
      store.recordAutoApproval({
        session_id: row.id,
        mode,
        tool,
        permission: request.permission,
        subject: request.file ?? request.subject.split('\n')[0]!,
        call_id: callId,
        skill,
      });
    };
    const routes = parent
      ? childRoutes(parent, settings)
      : {
          askUser: (origin: LiveSession, question: string, choices: string[]) => {
            if (options.interactive) origin.hooks?.notify(`${origin.agentName} is asking you a question: ${question}`, 'elicitation_dialog');
            return this.deps.broker.askQuestion(origin, question, choices);
          },
          askPermission: (origin: LiveSession, question: PermissionQuestion) => {
            if (options.interactive) origin.hooks?.notify(`${origin.agentName} needs your permission to use ${claudeToolName(question.tool)}`, 'permission_prompt');
            return this.deps.broker.askPermission(origin, question);
          },
        };

    // Tools are built per session: `task` closes over this session as the parent.
    const self: { current?: LiveSession } = {};
    const supervisor = this.deps.supervisor();
    // Sub-agent types that `permission.task` denies are not offered to the model.
    const catalogue = offeredSubagents(supervisor.catalogue(), chain);
    const webSearch = this.webSearchTool(model);
    // Skills the agent's `skills:` names and no `permission.skill` rule denies; none → no tool.
    const loadable = skillsForAgent(options.skills?.skills.values() ?? [], agent.skills).filter(
      (skill) => evaluateChain(chain, SKILL_TOOL, [skill.name]) !== 'deny',
    );
    // Team members talk through `send_message` (DESIGN §24): offered to teammates and to a lead that has them.
    const sendMessage = createSendMessageTool((args) => supervisor.team.send(self.current!, args));
    const inTeam = () => supervisor.team.inTeam(row.id, parent === undefined);
    // `disable-model-invocation: true`: only the user starts it (its slash command), or an agent file preloads it.
    const skills = loadable.filter((skill) => skill.modelInvocable !== false);
    // `memory:` (agents/memory.ts): only an agent that has it opens a folder or gets the tool.
    const memory = agent.memory && !fork ? this.memoryFor(agent, agent.memory) : undefined;
    // A skill's `allowed-tools` apply in the session that loaded it, or in the sub-agent a forked one runs in.
    const skillRuns: SkillRuns = {
      activate: (skill) => self.current!.gate.activateSkill(activeSkill(skill)),
      forking: (skill, callId) => self.current!.gate.noteForkedSkill(callId, activeSkill(skill)),
      runTask: (args, ctx) => {
        // As a subtask command: only a session that holds `task` may start the skill's sub-agent.
        if (!self.current!.tools.some((t) => t.name === TASK_TOOL)) {
          throw new ToolError(`That skill runs as a sub-agent (context: fork), and agent "${agent.name}" cannot start sub-agents (it has no task tool); do the task without it.`);
        }
        return supervisor.runTask(self.current!, args, ctx);
      },
    };
    const base: Tool[] = [
      ...this.deps.tools,
      ...(webSearch ? [webSearch] : []),
      ...(skills.length > 0 ? [createSkillTool(skills, skillRuns)] : []),
      ...(memory?.tool ? [memory.tool] : []),
      ...(catalogue.offered.length
        ? [createTaskTool(catalogue.offered, (args, ctx) => supervisor.runTask(self.current!, args, ctx), catalogue.denied)]
        : []),
      askUserTool,
    ];
    // The agent's own servers (inline `mcpServers`): built now, started only when a turn first needs tools.
    // A fork runs as its caller's agent with its caller's tools, so it gets that agent's servers
    // too — a set of its own, since a server's state (and its life) belongs to one session.
    const ownServers = agent.mcpServers ? this.agentServersFor(agent, row) : undefined;
    // Its own server wins over a configured one of the same name, for this agent alone.
    const ownPrefixes = Object.keys(agent.mcpServers ?? {}).map((name) => `${MCP_TOOL_PREFIX}${sanitizeName(name)}__`);
    const sharedTools = () => (ownServers ? mcp.tools().filter((t) => !ownPrefixes.some((prefix) => t.name.startsWith(prefix))) : mcp.tools());
    // MCP tools go through the same gate as built-ins: allowlists, deny rules, the parent's set.
    const selectTools = () => {
      const ownTools = ownServers?.tools() ?? [];
      const candidates = [...base, ...(inTeam() ? [sendMessage] : []), ...ownTools, ...sharedTools()];
      const gate = selectToolNames({
        available: candidates.map((t) => t.name),
        agent,
        chain,
        depth,
        maxDepth: settings.max_depth,
        parentTools: parent?.tools.map((t) => t.name),
        ownTools: ownTools.map((t) => t.name),
        narrow,
      });
      const chosen = new Set(gate.names);
      return { tools: candidates.filter((t) => chosen.has(t.name)), hints: gate.hints };
    };
    const forkTools = (shape: ForkShape) => () => {
      const candidates = new Map([...base, sendMessage, ...sharedTools(), ...(ownServers?.tools() ?? [])].map((t) => [t.name, t]));
      return { tools: shape.toolNames.flatMap((name) => candidates.get(name) ?? []), hints: {} };
    };
    const select = fork ? forkTools(fork) : selectTools;
    const mcpVersion = mcp.version + (ownServers?.version ?? 0);
    const gate = select();

    const runnerKind = effectiveRunnerKind(options.config.runner, { isChild: parent !== undefined, parentKind: parent?.runnerKind, agentRunner: agent.runner });
    // An agent's own hooks (its file's `hooks:`) run in its sessions only, beside the settings files'.
    const hookRunner = withAgentHooks(this.deps.hooks, agent.hooks, parent !== undefined);
    const session: LiveSession = {
      id: row.id,
      agentName: agent.name,
      model,
      cwd: row.cwd,
      depth,
      path,
      parent,
      // A task's ad-hoc identity replaces the agent's prompt; the rest of the prompt stays.
      systemPrompt:
        fork?.systemPrompt ??
        [
          buildSystemPrompt(row.system_prompt ?? agent.prompt, {
            cwd: row.cwd,
            projectRoot: project.root,
            isGitRepo: project.isGitRepo,
            platform: process.platform,
            date: options.now?.() ?? new Date(),
            userDirs: options.peerDirs,
          }),
          ...preloadedSkills(agent, loadable).map(preloadedSkillSection),
          ...(memory ? [memory.section] : []),
        ].join('\n\n'),
      tools: gate.tools,
      missingToolHints: gate.hints,
      gate: new PermissionGate(chain, this.approvalsFor(path[0]!), (q) => session.askPermission(session, q), {
        chain: modeChain,
        readOnly: (name) => session.tools.find((t) => t.name === name)?.readOnly,
        onAuto,
        onSkill: (name) => store.recordSessionSkill(row.id, name),
      }),
      sandboxSettings,
      sandbox: commandSandbox(this.deps.sandbox, sandboxSettings, row.cwd),
      runnerKind,
      // A main session in a container (runner.for "all") gets it on its first command, for the
      // project itself at its own path; it stays until the program exits.
      ...(parent === undefined && runnerKind === 'docker' ? { containerOnDemand: this.containerOnDemand(() => session) } : {}),
      shells: this.deps.shells.forSession(row.id, emit),
      todos: { get: () => store.getTodos(row.id), set: (todos) => store.setTodos(row.id, todos) },
      fileViews: this.fileViewsFor(row.id),
      changes: this.deps.changes({ id: row.id, cwd: row.cwd, isChild: parent !== undefined }),
      // The team's shared task list (DESIGN §24): the root's, for every session of the tree.
      teamStore: store,
      blobs: store.blobs,
      askUser: routes.askUser,
      askPermission: routes.askPermission,
      maxTurns: agent.maxTurns ?? (parent ? settings.max_turns : ROOT_TURN_SAFETY_CAP),
      ...(agent.effort ? { effort: agent.effort } : {}),
      history: store.loadMessages(row.id),
      ...(options.toolEnv ? { toolEnv: options.toolEnv } : {}),
      controller: new AbortController(),
      inbox: [],
      steering: [],
      emit,
      hooks: hookRunner
        ? new SessionHooks(hookRunner, {
            id: row.id,
            agentName: agent.name,
            cwd: row.cwd,
            parentId: parent?.id,
            projectRoot: project.root,
            signal: () => session.controller.signal,
            permissionMode: () => modeChain()[0]!,
            emit: (type, payload) => emit(type, payload),
          })
        : undefined,
    };
    self.current = session;
    // A fork's conversation starts as its caller's copy: the skills its caller loaded stay its caller's.
    this.restoreSkills(session, row, skills, fork === undefined);
    this.toolSelection.set(session, { select: () => select().tools, version: mcpVersion });
    live.set(row.id, session);
    if (ownServers) {
      this.agentServers.set(session, { manager: ownServers, warned: false });
      live.whenGone(session, () => void this.stopAgentServers(ownServers));
    }
    this.warnAboutAgent(agent, model, session);
    return session;
  }

  /** A session's own servers, not started yet; the configured ones of the same names are named once as set aside. */
  private agentServersFor(agent: AgentDefinition, { id, cwd }: Pick<SessionRow, 'id' | 'cwd'>): McpManager {
    const configured = new Set(this.deps.mcp.states().map((state) => state.name));
    const clashes = Object.keys(agent.mcpServers ?? {}).filter((name) => configured.has(name));
    for (const name of clashes) {
      this.warnOnce(
        `clash:${agent.source}:${name}`,
        `Warning: ${agent.source}: mcpServers: the server "${name}" has the name of a configured MCP server; agent "${agent.name}" uses its own.`,
      );
    }
    const manager = new McpManager(agent.mcpServers ?? {}, { cwd, sandbox: () => serverSandbox(this.deps.sandbox, cwd) });
    this.openAgentServers.set(manager, { sessionId: id, agent: agent.name });
    return manager;
  }

  private async stopAgentServers(manager: McpManager): Promise<void> {
    this.openAgentServers.delete(manager);
    await manager.close().catch(() => undefined);
  }

  /** Stops the own servers of every session still held (the engine closes). */
  async closeAgentServers(): Promise<void> {
    await Promise.all([...this.openAgentServers.keys()].map((manager) => this.stopAgentServers(manager)));
  }

  /** The own servers of the sessions in memory, as they are now (`pending` until a turn needed them); starts nothing. */
  agentServerStates(): SessionMcpServers[] {
    return [...this.openAgentServers].map(([manager, owner]) => ({ session_id: owner.sessionId, agent: owner.agent, servers: manager.states() }));
  }

  /**
   * `effort:` its model does not take: said once per agent and model, not at every request —
   * and not at all when the agent names that model itself (its load warning said it already).
   */
  private warnAboutAgent(agent: AgentDefinition, model: string, session: LiveSession): void {
    if (!agent.effort || effortOnWire(model, agent.effort)) return;
    if (effortModelWarning(agent.effort, agent.model) !== undefined && resolveModelName(agent.model) === model) return;
    this.warnOnce(`effort:${agent.source}:${model}`, `Warning: ${agent.source}: "effort: ${agent.effort}" is not applied: ${model} takes no effort setting.`, session);
  }

  private warnOnce(key: string, line: string, session?: LiveSession): void {
    if (this.warnedOnce.has(key)) return;
    this.warnedOnce.add(key);
    if (this.deps.options.onWarning) this.deps.options.onWarning(line);
    else session?.emit('error', { message: line });
  }

  /**
   * The skills active in a session as it opens: in the sub-agent of a `context: fork` skill,
   * that skill (its parent's gate knows the call; after a restart, the parent's stored call
   * says); each skill the store says was made active in it (by the `skill` tool or the user's
   * `/<name>`: a fact of the session, so a compaction or a restart keeps it); and, unless it
   * is a fork (whose conversation starts as its caller's), each skill its own stored
   * conversation loaded through the `skill` tool (sessions stored before the store kept them).
   * Nothing is read unless some skill has `allowed-tools` (or the parent noted this call).
   */
  private restoreSkills(session: LiveSession, row: SessionRow, offered: readonly SkillDefinition[], readOwn: boolean): void {
    const parent = session.parent;
    // A subtask command's `allowed-tools` are noted the same way, whether or not any skill has grants.
    const noted = parent && row.tool_call_id ? parent.gate.forkedSkill(row.tool_call_id) : undefined;
    const all = [...(this.deps.options.skills?.skills.values() ?? [])];
    if (!all.some((skill) => skill.grants)) {
      if (noted) session.gate.activateSkill(noted);
      return;
    }
    if (parent && row.tool_call_id) {
      const stored = noted ? undefined : skillCalls(parent.history).byCall.get(row.tool_call_id);
      const forked = stored === undefined ? undefined : findSkill(all, stored);
      if (noted) session.gate.activateSkill(noted);
      else if (forked?.fork) session.gate.activateSkill(activeSkill(forked));
    }
    // Names only: the grants are read from the skill's file as it is now (trust may have changed).
    for (const name of this.deps.options.store.sessionSkills(row.id)) {
      const skill = all.find((candidate) => candidate.name === name);
      if (skill) session.gate.activateSkill(activeSkill(skill));
    }
    if (!readOwn) return;
    for (const name of skillCalls(session.history).loaded) {
      const skill = findSkill(offered, name);
      if (skill && !skill.fork) session.gate.activateSkill(activeSkill(skill));
    }
  }

  /** The agent's memory folder, opened, with its prompt section and tool; or, when it cannot be used, a section saying why. */
  private memoryFor(agent: AgentDefinition, scope: MemoryScope): { section: string; tool?: Tool } {
    const { options, project } = this.deps;
    const place = memoryPlace(scope, agent.name, {
      projectRoot: project.root,
      userRoot: options.agentMemoryDir ?? join(configDir(process.env), USER_MEMORY_FOLDER),
    });
    if ('error' in place) return { section: `# Your memory\nYou have no memory folder: ${place.error}` };
    try {
      const dir = openMemoryFolder(place);
      return { section: memoryPromptSection(place, dir), tool: createMemoryTool(dir, scope !== 'user') };
    } catch (err) {
      return { section: `# Your memory\nYour memory folder cannot be used: ${errorMessage(err)}` };
    }
  }

  /** One container start at a time for a session; a failed start is tried again at the next command. */
  private containerOnDemand(session: () => LiveSession): () => Promise<RemoteCommandRunner> {
    let starting: Promise<RemoteCommandRunner> | undefined;
    return () => {
      const live = session();
      if (live.container) return Promise.resolve(live.container);
      starting ??= this.deps.startContainer(live).then(
        (container) => {
          live.container = container;
          return container;
        },
        (err: unknown) => {
          starting = undefined;
          throw err;
        },
      );
      return starting;
    };
  }

  /** Starts the MCP servers the first time a session needs tools, and brings its tool list up to date. */
  async refreshMcpTools(session: LiveSession): Promise<void> {
    const { mcp, options } = this.deps;
    const own = this.agentServers.get(session);
    if (!mcp.active && !own) return;
    const say = (line: string) => {
      if (options.onWarning) options.onWarning(line);
      else session.emit('error', { message: line });
    };
    const [warnings, ownWarnings] = await Promise.all([mcp.active ? mcp.start() : [], own ? own.manager.start() : []]);
    if (mcp.active && !this.mcpWarned) {
      this.mcpWarned = true;
      for (const line of warnings) say(line);
    }
    if (own && !own.warned) {
      own.warned = true;
      for (const line of ownWarnings) say(line.replace('Warning: MCP server', `Warning: agent "${session.agentName}"'s MCP server`));
    }
    const version = mcp.version + (own?.manager.version ?? 0);
    const selection = this.toolSelection.get(session);
    if (selection && selection.version !== version) {
      session.tools = selection.select();
      selection.version = version;
    }
  }

  /** `websearch` for a model whose provider searches on its own servers (Anthropic); none otherwise. */
  private webSearchTool(model: string): Tool | undefined {
    let provider: Provider;
    let modelId: string;
    try {
      const ref = parseModelRef(model);
      provider = this.provider(ref.provider);
      modelId = ref.model;
    } catch {
      // An unknown provider fails the turn itself, with its own message.
      return undefined;
    }
    const search = provider.webSearch?.bind(provider);
    return search ? createWebsearchTool((request) => search({ ...request, model: modelId })) : undefined;
  }

  private fileViewsFor(sessionId: string): FileViews {
    let views = this.fileViews.get(sessionId);
    if (!views) {
      views = new FileViews();
      this.fileViews.set(sessionId, views);
    }
    return views;
  }

  /** A root session's permission mode: as last set, else the engine's default. */
  rootMode(rootId: string): PermissionMode {
    return this.rootModes.get(rootId) ?? this.deps.options.permissionMode ?? this.deps.options.config.permission_mode ?? 'default';
  }

  setRootMode(rootId: string, mode: PermissionMode): void {
    this.rootModes.set(rootId, mode);
  }

  private approvalsFor(rootId: string): TreeApprovals {
    let approvals = this.approvals.get(rootId);
    if (!approvals) {
      approvals = new TreeApprovals();
      this.approvals.set(rootId, approvals);
    }
    return approvals;
  }

  private rulesetFor(agent: AgentDefinition): Ruleset {
    return agentRuleset(agent, this.deps.options.config, this.deps.options.permissionRules);
  }
}

/** Skills the agent's `skills:` names exactly (not by a glob) and may load: Claude Code puts their whole text in the sub-agent's prompt. */
function preloadedSkills(agent: AgentDefinition, loadable: readonly SkillDefinition[]): SkillDefinition[] {
  const named = (agent.skills ?? []).filter((name) => !name.includes('*'));
  return named.flatMap((name) => loadable.find((skill) => skill.name === name) ?? []);
}

/** At most this much of one preloaded skill goes into a prompt; the `skill` tool still returns all of it. */
export const PRELOADED_SKILL_MAX_CHARS = 40_000;

function preloadedSkillSection(skill: SkillDefinition): string {
  const body = skill.body.length > PRELOADED_SKILL_MAX_CHARS
    ? `${skill.body.slice(0, PRELOADED_SKILL_MAX_CHARS)}\n[skill "${skill.name}" cut at ${PRELOADED_SKILL_MAX_CHARS} characters; load it with the skill tool for the rest]`
    : skill.body;
  return `# Skill "${skill.name}" (preloaded)\nFolder: ${skill.dir}; paths in these instructions are relative to it.\n\n${body || skill.description}`;
}

/** The rules an agent starts from: defaults, then Claude Code's settings' allow lists, then the config's, then the agent's own. */
function agentRuleset(agent: AgentDefinition, config: Config, settings: readonly Rule[] = []): Ruleset {
  return [...DEFAULT_RULES, ...settings, ...rulesFromConfig(config.permission), ...rulesFromConfig(agent.permission)];
}

/**
 * The tool names this agent works with (for `opencode-ink agents`): as a root session, or,
 * for a sub-agent, as a child of the root.
 */
export function agentToolNames(agent: AgentDefinition, config: Config, hasSubagents: boolean, skills: Iterable<SkillDefinition> = []): string[] {
  const chain = [agentRuleset(agent, config), ...restrictionRulesets(agent)];
  const hasSkills = skillsForAgent(skills, agent.skills).some((skill) => skill.modelInvocable !== false && evaluateChain(chain, SKILL_TOOL, [skill.name]) !== 'deny');
  return selectToolNames({
    // websearch is offered for Anthropic models (the provider runs the search); MCP tools only once servers connect.
    available: [
      ...BUILTIN_TOOLS.map((t) => t.name),
      ...(parseModelRef(resolveModelName(agent.model ?? config.model, resolveModelName(config.model))).provider === 'anthropic' ? [WEBSEARCH_TOOL] : []),
      ...(hasSkills ? [SKILL_TOOL] : []),
      ...(hasSubagents ? [TASK_TOOL] : []),
      ...(agent.memory ? [MEMORY_TOOL] : []),
      ASK_USER_TOOL,
    ],
    agent,
    chain,
    depth: agent.mode === 'subagent' ? 1 : 0,
    maxDepth: config.subagents.max_depth,
  }).names;
}
