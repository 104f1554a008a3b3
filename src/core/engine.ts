// The headless core's public API. The UI and the `run` printers only call these methods and
// listen to the event stream; everything about agents, tools, permissions, persistence and
// sub-agents happens behind it.
import { buildSystemPrompt } from './agent/system-prompt.js';
import type { LiveSession } from './agent/live-session.js';
import { runTurn, type LoopDeps, type TurnOutcome } from './agent/loop.js';
import type { AgentDefinition } from './agents/index.js';
import { InteractionBroker, type PendingPermission, type PendingQuestion } from './broker.js';
import type { Config } from './config/index.js';
import { ConfigError } from './errors.js';
import { EventBus, type EventListener, type EventPayloads, type EventType, type PermissionReply, type SessionStatus } from './events.js';
import type { Message } from './messages.js';
import { PermissionGate, TreeApprovals } from './permission/gate.js';
import { DEFAULT_RULES, deniesEntirely, permissionKeyOf, rulesFromConfig, type Ruleset } from './permission/rules.js';
import { findProject, type ProjectInfo } from './project.js';
import { costOf, createProvider, resolveModelName, parseModelRef } from './provider/index.js';
import type { Provider } from './provider/types.js';
import type { SessionRow, SessionStore } from './store/index.js';
import { BUILTIN_TOOLS } from './tools/index.js';
import type { Tool } from './tools/types.js';

export interface EngineOptions {
  cwd: string;
  config: Config;
  store: SessionStore;
  agents: ReadonlyMap<string, AgentDefinition>;
  /** Someone can answer questions and permission requests (the TUI). */
  interactive: boolean;
  /** Approve every request that would ask (`run --yes`); deny rules still win. */
  autoApprove?: boolean;
  /** `-m/--model`: overrides the agent's and the config's model for root sessions. */
  model?: string;
  tools?: readonly Tool[];
  /** Provider instances by name; defaults to the built-in providers configured from `config.provider`. */
  providerFor?: (name: string) => Provider;
  maxOutputTokens?: number;
  now?: () => Date;
}

export interface CreateSessionOptions {
  agent?: string;
  model?: string;
  title?: string;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 16_000;
/** A root turn with no cap of its own still cannot loop forever. */
const ROOT_TURN_SAFETY_CAP = 500;

export class Engine {
  private readonly bus = new EventBus();
  private readonly broker: InteractionBroker;
  private readonly live = new Map<string, LiveSession>();
  private readonly approvals = new Map<string, TreeApprovals>();
  private readonly running = new Set<string>();
  private readonly providers = new Map<string, Provider>();
  private readonly project: ProjectInfo;
  private readonly tools: readonly Tool[];

  constructor(private readonly options: EngineOptions) {
    this.broker = new InteractionBroker({ interactive: options.interactive, autoApprove: options.autoApprove ?? false });
    this.project = findProject(options.cwd);
    this.tools = options.tools ?? BUILTIN_TOOLS;
  }

  on(listener: EventListener): () => void {
    return this.bus.on(listener);
  }

  get cwd(): string {
    return this.options.cwd;
  }

  /** Agents the user can talk to directly (Tab cycles these). */
  primaryAgents(): AgentDefinition[] {
    return [...this.options.agents.values()].filter((a) => a.mode !== 'subagent' && !a.hidden);
  }

  createSession(opts: CreateSessionOptions = {}): SessionRow {
    const agent = this.primaryAgent(opts.agent ?? this.options.config.default_agent);
    const model = this.pickModel(opts.model ?? this.options.model, agent);
    const row = this.options.store.createSession({
      agent: agent.name,
      title: opts.title ?? 'New session',
      status: 'idle',
      model,
      cwd: this.options.cwd,
      depth: 0,
    });
    this.emitFor(row.id, agent.name, [row.id], 'session.created', { parent_id: null, title: row.title, tool_call_id: null });
    return row;
  }

  getSession(id: string): SessionRow | undefined {
    return this.options.store.getSession(id);
  }

  /** Runs one user turn to completion in a root session. */
  async prompt(sessionId: string, text: string): Promise<TurnOutcome> {
    const row = this.options.store.getSession(sessionId);
    if (!row) throw new ConfigError(`No session with id "${sessionId}".`);
    if (this.running.has(sessionId)) throw new ConfigError(`Session ${sessionId} is already running a turn.`);
    const session = this.liveSession(row);
    if (row.title === 'New session' && text.trim()) {
      this.options.store.updateSession(row.id, { title: titleFrom(text) });
    }
    const input: Message = { role: 'user', content: [{ type: 'text', text }] };
    return this.runLive(session, input);
  }

  /** Cancels the turn running in a session (and, through its signal, its foreground children). */
  cancel(sessionId: string): boolean {
    const session = this.live.get(sessionId);
    if (!session || !this.running.has(sessionId)) return false;
    session.controller.abort();
    return true;
  }

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  answerQuestion(id: string, answer: string): boolean {
    return this.broker.answerQuestion(id, answer);
  }

  declineQuestion(id: string): boolean {
    return this.broker.declineQuestion(id);
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

  private async runLive(session: LiveSession, input: Message): Promise<TurnOutcome> {
    this.running.add(session.id);
    session.controller = new AbortController();
    this.setStatus(session, 'running');
    let outcome: TurnOutcome;
    try {
      outcome = await runTurn(session, this.loopDeps(), input);
    } finally {
      this.running.delete(session.id);
    }
    if (outcome.status === 'failed') session.emit('error', { message: outcome.error ?? 'The turn failed.' });
    this.setStatus(session, statusAfter(outcome, session.depth), outcome.error);
    session.emit('turn.completed', { usage: outcome.usage, cost: outcome.cost });
    return outcome;
  }

  private setStatus(session: LiveSession, status: SessionStatus, error?: string): void {
    this.options.store.updateSession(session.id, { status, ...(error ? { error } : {}) });
    session.emit('session.status', { status, ...(error ? { reason: error } : {}) });
  }

  private loopDeps(): LoopDeps {
    return {
      resolveModel: (model) => {
        const ref = parseModelRef(model);
        return { provider: this.provider(ref.provider), modelId: ref.model };
      },
      costOf,
      persist: (sessionId, message, usage) => this.options.store.appendMessage(sessionId, message, usage),
      maxOutputTokens: this.options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    };
  }

  private provider(name: string): Provider {
    let provider = this.providers.get(name);
    if (!provider) {
      provider = this.options.providerFor
        ? this.options.providerFor(name)
        : createProvider(name, { ...(this.options.config.provider?.[name as 'anthropic'] ?? {}) });
      this.providers.set(name, provider);
    }
    return provider;
  }

  private liveSession(row: SessionRow): LiveSession {
    const existing = this.live.get(row.id);
    if (existing) return existing;
    const agent = this.options.agents.get(row.agent) ?? this.primaryAgent(this.options.config.default_agent);
    const ruleset = this.rulesetFor(agent);
    const path = [row.id];
    const store = this.options.store;
    const emit = <K extends EventType>(type: K, payload: EventPayloads[K]) => this.emitFor(row.id, agent.name, path, type, payload);
    const session: LiveSession = {
      id: row.id,
      agentName: agent.name,
      model: row.model,
      cwd: row.cwd,
      depth: row.depth ?? 0,
      path,
      systemPrompt: buildSystemPrompt(agent.prompt, {
        cwd: row.cwd,
        projectRoot: this.project.root,
        isGitRepo: this.project.isGitRepo,
        platform: process.platform,
        date: this.options.now?.() ?? new Date(),
      }),
      tools: selectTools(this.tools, agent, ruleset),
      gate: new PermissionGate([ruleset], this.approvalsFor(row.id), (q) => this.broker.askPermission(session, q)),
      todos: { get: () => store.getTodos(row.id), set: (todos) => store.setTodos(row.id, todos) },
      maxTurns: agent.maxTurns ?? ROOT_TURN_SAFETY_CAP,
      history: store.loadMessages(row.id),
      controller: new AbortController(),
      emit,
    };
    this.live.set(row.id, session);
    return session;
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
    return [...DEFAULT_RULES, ...rulesFromConfig(this.options.config.permission), ...rulesFromConfig(agent.permission)];
  }

  private primaryAgent(name: string): AgentDefinition {
    const agent = this.options.agents.get(name);
    if (!agent || agent.mode === 'subagent') {
      const names = this.primaryAgents().map((a) => a.name);
      throw new ConfigError(`Unknown primary agent "${name}": expected one of ${names.join(', ')}.`);
    }
    return agent;
  }

  private pickModel(explicit: string | undefined, agent: AgentDefinition): string {
    const fallback = resolveModelName(this.options.config.model);
    if (explicit) return resolveModelName(explicit, fallback);
    if (agent.model) return resolveModelName(agent.model, fallback);
    return fallback;
  }

  private emitFor<K extends EventType>(sessionId: string, agent: string, path: readonly string[], type: K, payload: EventPayloads[K]): void {
    this.bus.emit({ type, session_id: sessionId, agent, path: [...path], ts: Date.now(), ...payload } as never);
  }
}

/** The tools an agent may see: its allowlist, minus disabled ones and those its rules deny outright. */
export function selectTools(all: readonly Tool[], agent: AgentDefinition, ruleset: Ruleset): Tool[] {
  const allow = agent.tools ? new Set(agent.tools) : undefined;
  const disabled = new Set(agent.disabledTools ?? []);
  return all.filter(
    (tool) =>
      (!allow || allow.has(tool.name)) && !disabled.has(tool.name) && !deniesEntirely(ruleset, permissionKeyOf(tool.name)),
  );
}

function statusAfter(outcome: TurnOutcome, depth: number): SessionStatus {
  switch (outcome.status) {
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return depth === 0 ? 'idle' : 'completed';
  }
}

function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
