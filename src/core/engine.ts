// The headless core's public API. The UI and the `run` printers only call these methods and
// listen to the event stream; everything about agents, tools, permissions, persistence and
// sub-agents happens behind it. The engine is a façade: `engine/session-factory.ts` opens live
// sessions (rules, approvals, tools, system prompt), `engine/turn-scheduler.ts` runs turns,
// delivers background results and tracks when a root has settled, and
// `engine/subagent-host.ts` connects the sub-agent supervisor to both. What stays here is
// what the front ends call: sessions and their settings, prompts and commands, compaction,
// questions and permission replies, models and MCP status.
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { queueSteering } from './agent/inbox.js';
import type { DropReason, LiveSession } from './agent/live-session.js';
import { toolSpecs, type LoopDeps, type PromptMark, type TurnOptions, type TurnOutcome } from './agent/loop.js';
import { compactSession, manualCompactionSkip, type CompactResult, type CompactSkipped, type ContextDeps } from './context/index.js';
import type { AgentDefinition } from './agents/index.js';
import { InteractionBroker, type PendingPermission, type PendingQuestion } from './broker.js';
import type { Config } from './config/index.js';
import type { PeerUserDirs } from './config/paths.js';
import { ConfigError, RunError, errorMessage } from './errors.js';
import { EventBus, makeEvent, type EventListener, type EventPayloads, type EventType, type PermissionReply } from './events.js';
import { emptyUsage, type Message, type ToolUsePart } from './messages.js';
import { parseSlashInput, rememberKeptFile, settleKeptFile, type CommandDefinition, type InlineFile, type InlineIo } from './commands/index.js';
import { loadImageFile } from './images/pasted-path.js';
import { storeImages } from './images/store.js';
import { preparePromptImages, type PromptImage } from './images/attach.js';
import { newId } from './ids.js';
import { executeTool } from './agent/tool-runner.js';
import { HookRunner, isEmptyHookSet, parseHooks, type HookSet } from './hooks/index.js';
import { planPrompt, type PromptPlan } from './prompt-plan.js';
import { findProject, type ProjectInfo } from './project.js';
import type { McpServerConfig } from './mcp/config.js';
import { McpManager, type McpServerState, type SessionMcpServers } from './mcp/manager.js';
import { LiveSessions } from './engine/live-sessions.js';
import { providerKeys, registerSecrets } from './tools/child-env.js';
import { costFunction, knownModels, limitOf, modelTakesImages, resolveModelName, parseModelRef, type ModelLimit } from './provider/index.js';
import type { Provider } from './provider/types.js';
import type { SessionIdMatch, SessionRow, SessionStore, SessionSummary } from './store/index.js';
import { TASK_TOOL, SubagentSupervisor } from './subagents/index.js';
import { startUserFork } from './subagents/user-fork.js';
import { BUILTIN_TOOLS } from './tools/index.js';
import { SessionFactory } from './engine/session-factory.js';
import { prepareSandbox, serverSandbox, type SandboxHost } from './sandbox/index.js';
import { TurnScheduler } from './engine/turn-scheduler.js';
import { BackgroundShells, type ShellReport, type ShellSummary, type ShellWatch } from './shells/background-shells.js';
import { subagentHost } from './engine/subagent-host.js';
import { ChildContainers } from './engine/containers.js';
import type { Tool } from './tools/types.js';
import type { Rule } from './permission/rules.js';
import type { PermissionMode } from './permission/modes.js';
import { activeSkill, EMPTY_SKILLS, type SkillCatalogue } from './skills/index.js';
import type { ActiveSkill } from './permission/gate.js';
import { Workspaces } from './workspace/worktree.js';
import { teamSnapshot, type PublicTeamTask } from './team/index.js';
import { Checkpoints, snapshotsRoot, type PromptEntry, type RevertOutcome, type RewindMode, type SharedFile } from './engine/checkpoints.js';
import { ShadowRepo, type DiffStat, type FileDiff } from './checkpoints/index.js';
import { revertRoot, rootDiff, type RootChangesDeps } from './engine/root-changes.js';

export { agentToolNames } from './engine/session-factory.js';
export { UndoConflictError, type PromptEntry, type RevertOutcome, type RewindMode, type SharedFile } from './engine/checkpoints.js';
export type { DiffHunk, DiffStat, FileDiff } from './checkpoints/index.js';

/** What goes with a prompt's text besides what it mentions. */
export interface PromptAttachments {
  /** Pictures attached like `@shot.png`: an editor's pasted image, an image file it links. */
  images?: readonly PromptImage[];
}

export interface EngineOptions {
  cwd: string;
  config: Config;
  store: SessionStore;
  agents: ReadonlyMap<string, AgentDefinition>;
  /** Someone can answer questions and permission requests (the TUI). */
  interactive: boolean;
  /** Someone answers `ask_user` questions; defaults to `interactive` (the library may answer approvals only). */
  answersQuestions?: boolean;
  /** Approve every request that would ask (`run --yes`); deny rules still win. */
  autoApprove?: boolean;
  /** The permission mode root sessions start in (DESIGN §26); `default` when not given. */
  permissionMode?: PermissionMode;
  /** `-m/--model`: overrides the agent's and the config's model for root sessions. */
  model?: string;
  tools?: readonly Tool[];
  /** Custom slash commands (DESIGN §10). */
  commands?: ReadonlyMap<string, CommandDefinition>;
  /** Provider instances by name; defaults to the built-in providers configured from `config.provider`. */
  providerFor?: (name: string) => Provider;
  maxOutputTokens?: number;
  now?: () => Date;
  /** MCP servers (DESIGN §14), started when the first session needs its tools. */
  mcp?: Readonly<Record<string, McpServerConfig>>;
  /** The user's Claude Code and OpenCode folders, for their instructions files (`~/.claude/CLAUDE.md`). */
  peerDirs?: PeerUserDirs;
  /** Where one-line warnings go (an MCP server that failed to start); default: an `error` event of the session. */
  onWarning?: (line: string) => void;
  /**
   * Sandboxing of commands (DESIGN §19), prepared by the front end (`--sandbox`, trust); by
   * default from `config.sandbox`, its unavailability told through `onWarning`.
   */
  sandbox?: SandboxHost;
  /**
   * Claude Code's hooks (DESIGN §20), gathered by the front end from every source the project's
   * trust allows (hooks/sources.ts); by default only the config's `hooks`, its warnings told
   * through `onWarning`.
   */
  hooks?: HookSet;
  /** Skills (DESIGN §20): offered through the `skill` tool to agents that may load them. */
  skills?: SkillCatalogue;
  /**
   * Rules placed after the built-in defaults and before the config's `permission`, so the
   * config overrides them: the `allow` lists of Claude Code's settings files.
   */
  permissionRules?: readonly Rule[];
  /** Variables set for the commands tools run (Claude Code's settings `env`); credentials never are. */
  toolEnv?: Readonly<Record<string, string>>;
  /** Where agents with `memory: user` keep their folders; default `<config dir>/agent-memory`. */
  agentMemoryDir?: string;
}

/** What a loaded project gives the engine: the folder, its configuration, store, agents and commands. */
export type ProjectParts = Pick<
  EngineOptions,
  'cwd' | 'config' | 'store' | 'agents' | 'commands' | 'mcp' | 'peerDirs' | 'sandbox' | 'hooks' | 'skills' | 'permissionRules' | 'toolEnv' | 'permissionMode'
>;

type OptionalParts = 'mcp' | 'peerDirs' | 'sandbox' | 'hooks' | 'skills' | 'permissionRules' | 'toolEnv' | 'permissionMode';

/** The project parts of a wider context (the CLI's or the TUI's). */
export function projectParts(
  ctx: Required<Omit<ProjectParts, OptionalParts>> & Pick<ProjectParts, OptionalParts>,
): ProjectParts {
  return {
    cwd: ctx.cwd,
    config: ctx.config,
    store: ctx.store,
    agents: ctx.agents,
    commands: ctx.commands,
    ...(ctx.mcp ? { mcp: ctx.mcp } : {}),
    ...(ctx.peerDirs ? { peerDirs: ctx.peerDirs } : {}),
    ...(ctx.sandbox ? { sandbox: ctx.sandbox } : {}),
    ...(ctx.hooks ? { hooks: ctx.hooks } : {}),
    ...(ctx.skills ? { skills: ctx.skills } : {}),
    ...(ctx.permissionRules ? { permissionRules: ctx.permissionRules } : {}),
    ...(ctx.toolEnv ? { toolEnv: ctx.toolEnv } : {}),
    ...(ctx.permissionMode ? { permissionMode: ctx.permissionMode } : {}),
  };
}

/**
 * What `sendToSession` did with a message: `queued` for the running session's next turn
 * boundary, or `continued` a finished sub-agent (its new result goes to its parent).
 */
export type SendOutcome = 'queued' | 'continued';

/** What became of a sent message: read by the session's model, or not delivered and why (one sentence). */
export type MessageDelivery = { delivered: true } | { delivered: false; reason: DropReason; message: string };

/** `sendToSession`'s answer: what it did at once, and a promise of whether the message reached the model. */
export interface SendReceipt {
  outcome: SendOutcome;
  /** Settles when the message enters the session's history, or is dropped (a `message.dropped` event); never rejects. */
  delivery: Promise<MessageDelivery>;
}

function notDeliveredMessage(reason: DropReason): string {
  return reason === 'cancelled'
    ? 'Not delivered: the session was cancelled before its next step.'
    : 'Not delivered: the session finished before its next step; send the message again to continue it.';
}

export interface CreateSessionOptions {
  agent?: string;
  model?: string;
  title?: string;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 16_000;

export class Engine {
  private readonly bus = new EventBus();
  private readonly broker: InteractionBroker;
  private readonly live = new LiveSessions();
  /** Root sessions whose prompt is being prepared (commands inlining files or shell output). */
  private readonly preparing = new Set<string>();
  /** Prompts cancelled while being prepared: their turn starts cancelled. */
  private readonly cancelledWhilePreparing = new Set<string>();
  private readonly project: ProjectInfo;
  private readonly tools: readonly Tool[];
  private readonly supervisor: SubagentSupervisor;
  /** One set of MCP connections for every session of this engine, children included. */
  readonly mcp: McpManager;
  private readonly sessions: SessionFactory;
  private readonly turns: TurnScheduler;
  /** Git worktrees of isolated sub-agents; the ones a crashed process left are cleaned up at start. */
  private readonly workspaces: Workspaces;
  /** Claude Code's hooks; undefined when none is configured. */
  private readonly hooks: HookRunner | undefined;
  /** Root sessions whose SessionStart hooks have run in this engine. */
  private readonly started = new Set<string>();
  /** Commands started with `bash` `run_in_background`, by session (DESIGN §23). */
  private readonly shells = new BackgroundShells();
  /** Sub-agents' containers (DESIGN §25). */
  private readonly containers: ChildContainers;
  /** Snapshots of the project's files for undo, redo, rewind and revert (DESIGN §18). */
  private readonly checkpoints: Checkpoints;
  /** Read by `sessions diff|revert <root>` only. */
  private rootRepo: ShadowRepo | undefined;

  constructor(private readonly options: EngineOptions) {
    this.workspaces = new Workspaces(worktreesRoot(options.store));
    void this.workspaces.cleanupStale();
    this.broker = new InteractionBroker({
      interactive: options.interactive,
      autoApprove: options.autoApprove ?? false,
      ...(options.answersQuestions !== undefined ? { answersQuestions: options.answersQuestions } : {}),
    });
    this.project = findProject(options.cwd);
    this.checkpoints = new Checkpoints({
      store: options.store,
      settings: options.config.checkpoints,
      projectRoot: this.project.root,
      snapshotsRoot: snapshotsRoot(dataRoot(options.store)),
      isRunning: (id) => this.turns.isRunning(id) || this.preparing.has(id),
      othersRunning: (id) => this.turns.othersRunning(id),
      forget: (id) => this.live.delete(id),
      warn: (line) => options.onWarning?.(line),
      emitFor: this.emitFor.bind(this),
    });
    this.tools = options.tools ?? BUILTIN_TOOLS;
    this.containers = new ChildContainers(options.config.runner, process.env, (line) => options.onWarning?.(line));
    let sandbox = options.sandbox;
    if (!sandbox) {
      sandbox = prepareSandbox({ config: options.config.sandbox, env: process.env, cwd: options.cwd });
      if (sandbox.notice) options.onWarning?.(sandbox.notice);
    }
    const host = sandbox;
    let hookSet = options.hooks;
    if (!hookSet) {
      const parsed = parseHooks(options.config.hooks, 'config');
      for (const warning of parsed.warnings) options.onWarning?.(`Warning: ${warning}`);
      hookSet = parsed.hooks;
    }
    this.hooks = isEmptyHookSet(hookSet) ? undefined : new HookRunner(hookSet);
    this.mcp = new McpManager(options.mcp ?? options.config.mcp, { cwd: options.cwd, sandbox: () => serverSandbox(host, options.cwd) });
    this.sessions = new SessionFactory({
      options,
      sandbox,
      hooks: this.hooks,
      project: this.project,
      tools: this.tools,
      live: this.live,
      shells: this.shells,
      mcp: this.mcp,
      broker: this.broker,
      supervisor: () => this.supervisor,
      emitFor: this.emitFor.bind(this),
      changes: (session) => ({
        wrote: (realPath) => this.checkpoints.wrote(session.id, realPath),
        watch: (run) => this.checkpoints.watch(session, run),
        ready: () => this.checkpoints.beforeChange(session),
        mayChange: () => this.checkpoints.mayChange(session),
      }),
      startContainer: (session) => this.containers.startContainer(session),
    });
    this.turns = new TurnScheduler({
      store: options.store,
      live: this.live,
      loopDeps: () => this.loopDeps(),
      refreshTools: (session) => this.sessions.refreshMcpTools(session),
      onEvent: (listener) => this.bus.on(listener),
      childRunEnded: (session) => this.shells.endSession(session.id),
    });
    this.supervisor = new SubagentSupervisor(
      subagentHost({
        options,
        live: this.live,
        sessions: this.sessions,
        turns: this.turns,
        workspaces: this.workspaces,
        checkpoints: this.checkpoints,
        onEvent: (listener) => this.bus.on(listener),
        emitFor: this.emitFor.bind(this),
        containers: this.containers,
        open: (id) => this.openForDelivery(id),
      }),
    );
    registerSecrets(providerKeys(options.config.provider));
  }

  on(listener: EventListener): () => void {
    return this.bus.on(listener);
  }

  get cwd(): string {
    return this.options.cwd;
  }

  /** Agents the user can talk to directly (Tab cycles these). */
  primaryAgents(): AgentDefinition[] {
    return this.sessions.primaryAgents();
  }

  createSession(opts: CreateSessionOptions = {}): SessionRow {
    const agent = this.sessions.primaryAgent(opts.agent ?? this.options.config.default_agent);
    const model = this.sessions.pickModel(opts.model ?? this.options.model, agent);
    const row = this.options.store.createSession({
      agent: agent.name,
      title: opts.title ?? 'New session',
      status: 'idle',
      model,
      cwd: this.options.cwd,
      depth: 0,
    });
    this.emitFor(row.id, agent.name, [row.id], 'session.created', {
      parent_id: null,
      title: row.title,
      tool_call_id: null,
      task_description: null,
      depth: 0,
    });
    return row;
  }

  getSession(id: string): SessionRow | undefined {
    return this.options.store.getSession(id);
  }

  /** A session named by its full id or a unique prefix of it. */
  resolveSessionId(text: string): SessionIdMatch {
    return this.options.store.resolveSessionId(text);
  }

  /** A stored session with its messages, for views that load history on demand. */
  /**
   * A stored session and its conversation. With `withUndone`, messages that undo or rewind
   * took out are included too, each marked in `undone` (same indexes), for a transcript that
   * shows them as undone; without it, the conversation the model sees next.
   */
  history(sessionId: string, opts: { withUndone?: boolean } = {}): { session: SessionRow; messages: Message[]; undone?: boolean[] } | undefined {
    const session = this.options.store.getSession(sessionId);
    if (!session) return undefined;
    if (!opts.withUndone) return { session, messages: this.options.store.loadMessages(sessionId) };
    const rows = this.options.store.messageRows(sessionId);
    return { session, messages: rows.map((r) => ({ role: r.role, content: r.content })), undone: rows.map((r) => r.undone) };
  }

  /** The team's shared task list of a root session (DESIGN §24), in creation order. */
  teamTasks(rootId: string): PublicTeamTask[] {
    return teamSnapshot(this.options.store, rootId).tasks;
  }

  children(sessionId: string): SessionRow[] {
    return this.options.store.children(sessionId);
  }

  /** Root sessions, most recent first, with totals that include their sub-agents. */
  listRoots(): SessionSummary[] {
    return this.options.store.listRoots();
  }

  mostRecentRoot(): SessionRow | undefined {
    return this.options.store.mostRecentRoot(this.options.cwd);
  }

  /** Switches the primary agent of an idle root session (Tab in the TUI, `/agent`). */
  setAgent(sessionId: string, agentName: string): SessionRow {
    const row = this.idleRoot(sessionId);
    const agent = this.sessions.primaryAgent(agentName);
    const model = agent.model && !this.options.model ? this.sessions.pickModel(undefined, agent) : row.model;
    this.options.store.updateSession(row.id, { agent: agent.name, model });
    this.live.delete(row.id);
    return this.options.store.getSession(row.id)!;
  }

  /** Changes the model of an idle root session (`/model`); aliases like `opus` resolve here. */
  setModel(sessionId: string, model: string): SessionRow {
    const row = this.idleRoot(sessionId);
    const resolved = resolveModelName(model, resolveModelName(this.options.config.model));
    // An unknown provider is refused now, with its close matches, not at the next prompt.
    this.sessions.provider(parseModelRef(resolved).provider);
    this.options.store.updateSession(row.id, { model: resolved });
    this.live.delete(row.id);
    return this.options.store.getSession(row.id)!;
  }

  private idleRoot(sessionId: string): SessionRow {
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    if (this.turns.isRunning(sessionId)) throw new ConfigError('Wait for the running turn to finish (or press Esc) before switching.');
    return row;
  }

  /**
   * Runs one user turn to completion in a root session. The prompt may be a custom command
   * (`/name args`) or `@subagent text`, which first run a sub-agent task with no model call
   * before it; `@path` anywhere attaches that file. `attachments.images` go with the message
   * like `@shot.png` does (an editor's pasted picture); the text may then be empty.
   */
  async prompt(sessionId: string, text: string, attachments: PromptAttachments = {}): Promise<TurnOutcome> {
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    if (this.turns.isRunning(sessionId) || this.preparing.has(sessionId)) throw new ConfigError(`Session ${sessionId} is already running a turn.`);
    this.preparing.add(sessionId);
    let session: LiveSession;
    let plan: PromptPlan;
    let hookContext: string[];
    let cancelled = false;
    // A command file's `allowed-tools` hold from its `!`cmd`` lines to the end of its turn.
    const granted = this.commandGrant(text);
    let release: (() => void) | undefined;
    try {
      session = this.sessions.open(row);
      if (granted) release = session.gate.grantForPrompt(granted);
      // A cancelled earlier turn leaves an aborted signal behind; inlining needs a live one.
      if (session.controller.signal.aborted) session.controller = new AbortController();
      const hooked = await this.promptHooks(session, text);
      if ('refused' in hooked) return refusedPrompt(hooked.refused);
      hookContext = hooked.context;
      plan = await planPrompt(text, {
        commands: this.options.commands ?? new Map(),
        agents: this.options.agents,
        subagents: this.supervisor.catalogue().map((a) => a.name),
        currentAgent: session.agentName,
        projectRoot: this.project.root,
        io: this.inlineIo(session),
        attachImageFile: async (file) => storeImages(session.blobs, [await loadImageFile(file)])[0]!,
      });
      if (attachments.images?.length) {
        if (plan.kind === 'subtask') throw new RunError('Images can go with a message to the session\'s agent, not with a sub-agent task; send them without the command or @mention.');
        plan = { ...plan, images: [...plan.images, ...(await preparePromptImages(session.blobs, attachments.images))] };
      }
    } catch (error) {
      release?.();
      throw error;
    } finally {
      this.preparing.delete(sessionId);
      // Read (and cleared) however preparing ended, so a refused prompt leaves nothing behind.
      cancelled = this.cancelledWhilePreparing.delete(sessionId);
    }
    // A subtask command's grants go to its sub-agent (runPrompt), not to the rest of this turn.
    if (plan.kind === 'subtask') release?.();
    // Started last and not waited for: the model request goes out while it is taken, and it is
    // written on the prompt's message once both exist. Tools that can change files wait for it.
    if (!cancelled) this.checkpoints.promptStarted(sessionId);
    const promptMark: PromptMark = { snapshot: null, stored: (messageId) => this.checkpoints.promptStored(sessionId, messageId) };
    try {
      return await this.runPrompt(row, session, plan, text, promptMark, hookContext, cancelled, granted);
    } finally {
      release?.();
      await this.checkpoints.promptEnded(sessionId);
    }
  }

  private async runPrompt(
    row: SessionRow,
    session: LiveSession,
    plan: PromptPlan,
    text: string,
    promptMark: PromptMark,
    hookContext: readonly string[],
    cancelled: boolean,
    granted: ActiveSkill | undefined,
  ): Promise<TurnOutcome> {
    if (row.title === 'New session' && text.trim()) {
      this.options.store.updateSession(row.id, { title: titleFrom(text) });
    }
    if (plan.kind === 'subtask') {
      if (!session.tools.some((t) => t.name === TASK_TOOL)) {
        throw new ConfigError(`That prompt runs a sub-agent task, but agent "${session.agentName}" cannot start tasks (it has no task tool).`);
      }
      // Recorded as the assistant's own task call, so the parent continues from its result.
      const call: ToolUsePart = {
        type: 'tool_use',
        id: newId('toolu'),
        name: TASK_TOOL,
        input: {
          description: plan.description,
          prompt: plan.prompt,
          subagent_type: plan.agent,
          ...(plan.model ? { model: plan.model } : {}),
          ...(plan.command ? { command: plan.command } : {}),
        },
      };
      // A forked skill's grants, or the command's, apply in the sub-agent that runs it.
      const forked = this.skillOf(plan.skill) ?? granted;
      if (forked) session.gate.noteForkedSkill(call.id, forked);
      return this.turns.runLive(session, userText(text, hookContext), undefined, { presetCalls: [call], prompt: promptMark, cancelled });
    }
    const started = this.skillOf(plan.skill);
    if (started) session.gate.activateSkill(started);
    const turn: TurnOptions = { prompt: promptMark, cancelled, ...(plan.model ? { model: resolveModelName(plan.model, session.model) } : {}) };
    const typed = userText(plan.text, hookContext);
    const input: Message = { ...typed, content: [...typed.content, ...plan.images] };
    if (plan.images.length) {
      session.emit('prompt.images', { images: plan.images.map(({ name, width, height, media_type }) => ({ name, width, height, media_type })) });
    }
    const run = async (): Promise<TurnOutcome> => {
      if (!plan.agent) return this.turns.runLive(session, input, undefined, turn);
      // A command's own agent runs this one turn; the session keeps its agent afterwards.
      this.live.delete(row.id);
      const guest = this.sessions.open(row, undefined, undefined, plan.agent);
      const releaseGuest = granted ? guest.gate.grantForPrompt(granted) : undefined;
      try {
        return await this.turns.runLive(guest, input, undefined, turn);
      } finally {
        releaseGuest?.();
        this.live.delete(row.id);
      }
    };
    if (!plan.keeps) return run();
    const kept = await rememberKeptFile(this.project.root, plan.keeps.file, plan.keeps.command);
    let outcome: TurnOutcome | undefined;
    try {
      outcome = await run();
      return outcome;
    } finally {
      // Also when the turn threw: the user's file is put back before the error goes on.
      const notice = await settleKeptFile(kept, outcome?.status === 'completed');
      if (notice) session.emit('file.kept', notice);
    }
  }

  /** The prompts of a root session, oldest first (`/rewind`, ACP clients). */
  prompts(sessionId: string): PromptEntry[] {
    return this.checkpoints.prompts(sessionId);
  }

  /** Puts the files back as they were before the last prompt and hides that prompt and its answers. */
  undo(sessionId: string): Promise<RevertOutcome> {
    return this.checkpoints.undo(sessionId);
  }

  /** Re-applies what the last undo took back (until a new prompt is sent). */
  redo(sessionId: string): Promise<RevertOutcome> {
    return this.checkpoints.redo(sessionId);
  }

  /** Goes back to before one prompt: its files, the conversation, or both. */
  rewind(sessionId: string, messageId: string, mode: RewindMode): Promise<RevertOutcome> {
    return this.checkpoints.rewind(sessionId, messageId, mode);
  }

  /**
   * Undoes one session's changes (its descendants' included), keeping everything else. A root
   * session's are its prompts' changes (root-changes.ts); files changed between its prompts by
   * something else are left as they are and named in `left_alone`.
   */
  async revertSession(sessionId: string): Promise<RevertOutcome> {
    const row = this.options.store.getSession(sessionId);
    if (!row || row.parent_id) return this.checkpoints.revertSession(sessionId);
    if (this.turns.isRunning(row.id) || this.preparing.has(row.id) || row.status === 'running' || row.status === 'queued') {
      throw new ConfigError(`Session ${row.id} is running; wait for it to finish (or press Esc) first.`);
    }
    const { window, files } = await revertRoot(this.rootChanges(), row);
    const leftAlone = window.leftAlone.length ? { left_alone: window.leftAlone } : {};
    this.emitFor(row.id, row.agent, [row.id], 'session.reverted', {
      action: 'revert',
      files,
      from_snapshot: window.to,
      to_snapshot: window.from,
      hidden_message_ids: [],
      restored_message_ids: [],
      ...leftAlone,
    });
    return { files, hidden_message_ids: [], restored_message_ids: [], ...leftAlone };
  }

  /** The unified diff a session made, its descendants' included. */
  async sessionDiff(sessionId: string): Promise<string> {
    return (await this.sessionDiffReport(sessionId)).diff;
  }

  /** A session's unified diff, and the files left out of it because something else changed them too (named, not shown). */
  async sessionDiffReport(sessionId: string): Promise<{ diff: string; left_alone: SharedFile[] }> {
    const row = this.options.store.getSession(sessionId);
    if (!row || row.parent_id) {
      const diff = await this.checkpoints.sessionDiff(sessionId);
      return { diff, left_alone: this.checkpoints.sharedFiles(sessionId) };
    }
    const { diff, leftAlone } = await rootDiff(this.rootChanges(), row);
    return { diff, left_alone: leftAlone };
  }

  /** What root-changes.ts reads: the same shadow repository the checkpoints write, opened only when asked. */
  private rootChanges(): RootChangesDeps {
    const settings = this.options.config.checkpoints;
    this.rootRepo ??= new ShadowRepo({ root: snapshotsRoot(dataRoot(this.options.store)), project: this.project.root, maxFileMb: settings.max_file_mb });
    return {
      store: this.options.store,
      repo: this.rootRepo,
      snapshotNow: () => this.checkpoints.snapshot(),
      whyNoSnapshots: () => (settings.enabled ? 'it ran before checkpoints existed, or has not started' : 'checkpoints.enabled is false'),
    };
  }

  /** Files a session changed that another session also changed while it ran: left out of its diff and its revert. */
  sessionSharedFiles(sessionId: string): SharedFile[] {
    return this.checkpoints.sharedFiles(sessionId);
  }

  /** What a finished session changed (files, lines added and removed), descendants included; undefined while it runs or without snapshots. Cached. */
  sessionDiffStat(sessionId: string): Promise<DiffStat | undefined> {
    return this.checkpoints.sessionDiffStat(sessionId);
  }

  /** A session's changes, descendants included, as typed per-file hunks (what the TUI shows on expand). */
  sessionChanges(sessionId: string): Promise<FileDiff[]> {
    return this.checkpoints.sessionChanges(sessionId);
  }

  /**
   * SessionStart hooks (the first prompt of a root session in this engine) and
   * UserPromptSubmit hooks: what they add to the prompt, or why they refuse it.
   */
  private async promptHooks(session: LiveSession, text: string): Promise<{ context: string[] } | { refused: string }> {
    const hooks = session.hooks;
    if (!hooks) return { context: [] };
    const context: string[] = [];
    if (!this.started.has(session.id)) {
      this.started.add(session.id);
      const start = await hooks.sessionStart(session.history.length ? 'resume' : 'startup');
      if (start) context.push(start);
    }
    const submitted = await hooks.userPromptSubmit(text);
    if (submitted.refuse !== undefined) return { refused: submitted.refuse };
    if (submitted.context) context.push(submitted.context);
    return { context };
  }

  /**
   * Compacts a session by hand (`/compact [focus]`): older turns become a stored summary
   * message. When there is nothing older than the recent turns, or too little for a summary
   * to save anything, nothing is sent and the answer says which.
   */
  async compact(sessionId: string, focus?: string): Promise<CompactResult | CompactSkipped> {
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    if (this.turns.isRunning(sessionId) || this.preparing.has(sessionId)) throw new ConfigError('Wait for the running turn to finish (or press Esc) before compacting.');
    const session = this.sessions.open(row);
    return this.turns.exclusive(session, async () => {
      session.controller = new AbortController();
      const before = this.options.store.getSession(sessionId)?.status ?? 'idle';
      this.turns.setStatus(session, 'running');
      try {
        const { provider, modelId } = this.loopDeps().resolveModel(session.model);
        const deps: ContextDeps = {
          provider,
          modelId,
          model: session.model,
          limit: this.modelLimit(session.model),
          settings: this.options.config.compaction,
          costOf: costFunction(this.options.config),
          persist: (message, usage) => this.options.store.appendMessage(session.id, message, usage).id,
        };
        const skip = manualCompactionSkip(session.history, deps.limit);
        if (skip) return skip;
        const shape = { system: session.systemPrompt, tools: toolSpecs(session.tools) };
        const result = await compactSession(session, shape, deps, { reason: 'manual', signal: session.controller.signal, ...(focus?.trim() ? { focus } : {}) });
        return result ?? { skipped: 'nothing-older', olderTokens: 0 };
      } finally {
        this.turns.setStatus(session, before === 'running' ? 'idle' : before);
      }
    });
  }

  /** Custom commands, for the `/` menu and `/help`. */
  commands(): CommandDefinition[] {
    return [...(this.options.commands ?? new Map<string, CommandDefinition>()).values()];
  }

  /** Cancels the turn running in a session (and, through its signal, its foreground children). */
  cancel(sessionId: string): boolean {
    this.checkpoints.cancelPrompt(sessionId);
    if (this.preparing.has(sessionId)) {
      this.cancelledWhilePreparing.add(sessionId);
      return true;
    }
    return this.turns.cancel(sessionId);
  }

  isRunning(sessionId: string): boolean {
    return this.turns.isRunning(sessionId);
  }

  /**
   * Sends a message to a session (DESIGN §23). A session under way in this process (running,
   * or a sub-agent waiting for a slot) gets it as a user message at its next turn boundary,
   * never in the middle of a tool; parent and siblings go on. A finished sub-agent is continued
   * with it, as `task` with its `session_id` would, and its new result reaches its parent like a
   * background result. A root that is not running is refused: `prompt` starts its turns.
   */
  sendToSession(sessionId: string, text: string): SendReceipt {
    if (!text.trim()) throw new ConfigError('The message is empty; nothing was sent.');
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    const live = this.live.get(sessionId);
    if (live && (this.turns.isRunning(sessionId) || this.supervisor.isUnderWay(sessionId))) {
      const delivery = new Promise<MessageDelivery>((resolve) => {
        queueSteering(live, {
          text,
          sender: 'user',
          settle: (fate) => resolve(fate.delivered ? fate : { ...fate, message: notDeliveredMessage(fate.reason) }),
        });
      });
      return { outcome: 'queued', delivery };
    }
    if (!row.parent_id) throw new ConfigError(`Session ${sessionId} is not running a turn; send it a prompt instead.`);
    if (this.options.store.leases.otherHolder(sessionId) !== undefined) {
      throw new ConfigError(`Sub-agent ${sessionId} is in use by another opencode-ink process; send the message from there.`);
    }
    this.supervisor.continueChild(this.openForDelivery(row.parent_id), row, text);
    // The message is the continued run's input: it reaches the model with its first request.
    return { outcome: 'continued', delivery: Promise.resolve({ delivered: true }) };
  }

  /**
   * Sends a running foreground sub-agent to the background (Ctrl+B): its parent's `task` call
   * returns `state="running"` at once and the result arrives later as a background result.
   * False when the session is not a foreground sub-agent running here.
   */
  detach(sessionId: string): boolean {
    return this.supervisor.detach(sessionId);
  }

  /** A running foreground sub-agent that `detach` would send to the background. */
  isDetachable(sessionId: string): boolean {
    return this.supervisor.isDetachable(sessionId);
  }

  /**
   * `/fork <prompt>`: starts a fork of a session that is not running a turn — a background
   * sub-agent that inherits its conversation (subagents/user-fork.ts). Resolves with its id.
   */
  async fork(sessionId: string, prompt: string): Promise<string> {
    if (this.turns.isRunning(sessionId) || this.preparing.has(sessionId)) throw new ConfigError('Wait for the running turn to finish before /fork.');
    const session = this.openForDelivery(sessionId);
    // A cancelled earlier turn leaves an aborted signal behind; the task call needs a live one.
    if (session.controller.signal.aborted) session.controller = new AbortController();
    const { store } = this.options;
    return this.turns.exclusive(session, () => startUserFork(session, prompt, { store, persist: (id, message) => store.appendMessage(id, message) }));
  }

  /** A session and its ancestors held in memory, opened from the store where they are not, to receive a result. */
  private openForDelivery(sessionId: string): LiveSession {
    const existing = this.live.get(sessionId);
    if (existing) return existing;
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    const parent = row.parent_id ? this.openForDelivery(row.parent_id) : undefined;
    return this.sessions.open(row, parent);
  }

  /**
   * Cancels every running turn, children and background tasks included, and stops every
   * background shell (quitting). Whatever is still alive when the process exits is killed then.
   */
  cancelAll(): void {
    for (const id of this.preparing) this.cancelledWhilePreparing.add(id);
    this.checkpoints.cancelAll();
    this.turns.cancelAll();
    void this.shells.endAll();
  }

  /**
   * Stops a background command the user picked in `/shells`: the same path as the model's
   * `kill_shell` (its whole process tree; `shell.exited` with reason `killed`). Resolves once
   * it is gone; rejects with one sentence for an unknown session or shell id.
   */
  async stopShell(sessionId: string, shellId: string): Promise<ShellReport> {
    try {
      return await this.shells.kill(sessionId, shellId);
    } catch (err) {
      throw new ConfigError(errorMessage(err));
    }
  }

  /**
   * Follows a background command's output for the user (`/shells`, Enter): what it printed
   * last, then each chunk to `listener` until `stop()`; the model's `bash_output` reads are
   * unaffected. Throws one sentence for an unknown session or shell id.
   */
  watchShell(sessionId: string, shellId: string, listener: (text: string) => void): ShellWatch {
    try {
      return this.shells.watch(sessionId, shellId, listener);
    } catch (err) {
      throw new ConfigError(errorMessage(err));
    }
  }

  /** Background commands still running, in every session, oldest first (`/shells`). */
  runningShells(): ShellSummary[] {
    return this.shells.running();
  }

  /**
   * Resolves when a root session has nothing left under way: no running turn, no background
   * task, and no turn started by a background result. `run` waits on this before exiting.
   */
  settled(rootId: string): Promise<void> {
    return this.turns.settled(rootId);
  }

  /** The outcome of the last turn that ended in this session, e.g. one a background result started. */
  lastOutcome(sessionId: string): TurnOutcome | undefined {
    return this.turns.lastOutcome(sessionId);
  }

  /** `@file` and `` !`cmd` `` run through the session's own tools and permissions. */
  private inlineIo(session: LiveSession): InlineIo {
    const run = async (name: string, input: Record<string, unknown>): Promise<InlineFile> => {
      const result = await executeTool(session, { type: 'tool_use', id: newId('inline'), name, input });
      if (result.isError) throw new Error(result.content);
      return { text: result.content, images: storeImages(session.blobs, result.images ?? []) };
    };
    return {
      cwd: session.cwd,
      readFile: (path) => run('read', { file_path: path }),
      runShell: async (command) => (await run('bash', { command })).text,
    };
  }

  /** A command file's `allowed-tools` when `text` runs that command (`/review …`), as the gate applies them. */
  private commandGrant(text: string): ActiveSkill | undefined {
    const slash = parseSlashInput(text);
    const command = slash ? this.options.commands?.get(slash.name) : undefined;
    return command?.grants ? { name: `/${command.name}`, grants: command.grants, command: true } : undefined;
  }

  /** The skill a slash command starts, as its `allowed-tools` apply (skills/allowed-tools.ts). */
  private skillOf(name: string | undefined): ActiveSkill | undefined {
    const skill = name === undefined ? undefined : this.options.skills?.skills.get(name);
    return skill ? activeSkill(skill) : undefined;
  }

  /** Every loaded skill and the problems loading them (`/skills`). */
  skills(): SkillCatalogue {
    return this.options.skills ?? EMPTY_SKILLS;
  }

  /** Sub-agents the model can start with `task`. */
  subagents(): AgentDefinition[] {
    return this.supervisor.catalogue();
  }

  answerQuestion(id: string, answer: string): boolean {
    return this.broker.answerQuestion(id, answer);
  }

  declineQuestion(id: string): boolean {
    return this.broker.declineQuestion(id);
  }

  /** A root session's permission mode (DESIGN §26). */
  permissionMode(rootId: string): PermissionMode {
    return this.sessions.rootMode(this.rootOf(rootId));
  }

  /**
   * Changes a session tree's permission mode; it applies from the next permission check on,
   * to its running sub-agents too. Given a sub-agent's id, it changes its root's.
   */
  setPermissionMode(sessionId: string, mode: PermissionMode): void {
    this.sessions.setRootMode(this.rootOf(sessionId), mode);
  }

  /** The root of a stored session's tree. */
  private rootOf(sessionId: string): string {
    let row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    while (row.parent_id !== null) {
      const parent = this.options.store.getSession(row.parent_id);
      if (!parent) break;
      row = parent;
    }
    return row.id;
  }

  replyPermission(id: string, reply: PermissionReply, message?: string): boolean {
    return this.broker.replyPermission(id, reply, message);
  }

  pendingQuestions(): PendingQuestion[] {
    return this.broker.pendingQuestions();
  }

  pendingPermissions(): PendingPermission[] {
    return this.broker.pendingPermissions();
  }

  /** Each MCP server's state and tools (`/mcp`); starts the servers if no session has yet. */
  async mcpStatus(): Promise<McpServerState[]> {
    await this.mcp.start();
    return this.mcp.states();
  }

  /** The own MCP servers of each session in memory whose agent file defines some (`/mcp`); starts nothing. */
  agentMcpStatus(): SessionMcpServers[] {
    return this.sessions.agentServerStates();
  }

  /** Stops the MCP servers this engine started; the engine is not used afterwards. */
  async close(): Promise<void> {
    this.cancelAll();
    // A snapshot the cancel gave up on still has its git process running in the data dir.
    await Promise.all([this.mcp.close(), this.sessions.closeAgentServers(), this.workspacesSettled(), this.shells.endAll(), this.checkpointsSettled()]);
    // After the children have settled: each removes its own container as it ends; this catches the rest.
    await this.containers.close();
  }

  /** Resolves once no snapshot of the project's files is being taken (cancelled ones included). */
  checkpointsSettled(): Promise<void> {
    return this.checkpoints.settled();
  }

  /**
   * Resolves once no sub-agent worktree is being cleaned up or removed: what a front end
   * waits for before exiting, so none is left behind. Cancelled children finish first.
   */
  async workspacesSettled(): Promise<void> {
    await this.turns.allSettled();
    await this.workspaces.settled();
  }

  /** Sessions held in memory: roots in use and children under way (the rest live in the store). */
  liveSessionCount(): number {
    return this.live.size;
  }

  private loopDeps(): LoopDeps {
    return {
      resolveModel: (model) => {
        const ref = parseModelRef(model);
        return { provider: this.sessions.provider(ref.provider), modelId: ref.model };
      },
      costOf: costFunction(this.options.config),
      persist: (sessionId, message, usage, marks) => this.options.store.appendMessage(sessionId, message, usage, marks).id,
      maxOutputTokens: this.options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      contextFor: (model) => ({ limit: this.modelLimit(model), settings: this.options.config.compaction }),
      takesImages: (model) => modelTakesImages(model, this.options.config, process.env),
    };
  }

  /**
   * The models `/model` offers: the built-in Claude names, then every model the config lists
   * under a provider (`ollama/qwen3:8b`), each once.
   */
  modelChoices(): Array<{ name: string; description: string }> {
    const configured = Object.entries(this.options.config.provider).flatMap(([provider, entry]) =>
      Object.keys(entry?.models ?? {}).map((id) => ({ name: `${provider}/${id}`, description: `configured under provider.${provider}` })),
    );
    const seen = new Set<string>();
    return [...knownModels(), ...configured].filter((m) => {
      if (seen.has(m.name)) return false;
      seen.add(m.name);
      return true;
    });
  }

  /** The context window and output limit of a `provider/model`: config override, built-in table, default. */
  modelLimit(model: string): ModelLimit {
    const ref = parseModelRef(model);
    const entry = this.options.config.provider[ref.provider]?.models?.[ref.model];
    return limitOf(model, entry?.limit);
  }

  private emitFor<K extends EventType>(sessionId: string, agent: string, path: readonly string[], type: K, payload: EventPayloads[K]): void {
    this.bus.emit(makeEvent(type, { session_id: sessionId, agent, path: [...path], ts: Date.now() }, payload));
  }
}

/** Worktrees live in the data dir beside the session store; an in-memory store's in a per-user temp folder. */
function worktreesRoot(store: SessionStore): string {
  return join(dataRoot(store), 'worktrees');
}

/** The data dir holding the session store; an in-memory store's is a per-user temp folder. */
function dataRoot(store: SessionStore): string {
  if (store.file === ':memory:') return join(tmpdir(), `opencode-ink-${process.getuid?.() ?? 'user'}`);
  return dirname(store.file);
}

/** The user's prompt, with what hooks added after it as separate text blocks. */
function userText(text: string, hookContext: readonly string[] = []): Message {
  return {
    role: 'user',
    // Empty only for a prompt of images alone: providers refuse an empty text block.
    content: [...(text ? [{ type: 'text' as const, text }] : []), ...hookContext.map((context) => ({ type: 'text' as const, text: `<hook-context>\n${context}\n</hook-context>` }))],
  };
}

/** A prompt a UserPromptSubmit hook refused: nothing was sent or stored. */
function refusedPrompt(reason: string): TurnOutcome {
  return { status: 'failed', text: '', error: `A UserPromptSubmit hook refused the prompt: ${reason}`, usage: emptyUsage(), cost: 0, steps: 0 };
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
