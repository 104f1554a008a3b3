// Core events → Agent Client Protocol traffic, for the root sessions an editor opened.
//
// - The root session's own events stream as `session/update`: text and thinking chunks, tool
//   calls (kind, title, locations, diffs) and plans from `todowrite`.
// - A sub-agent is the root's `task` tool call: its progress (agent, status, latest tool
//   calls, tokens) arrives as updates of that call; its own text and tools are never mixed
//   into the root's message stream.
// - Permission asks and `ask_user` questions from any depth become requests to the client,
//   titled with the asking sub-agent's path (`build › explore (Find API routes)`), and the
//   answers go back through the engine. A request the core settles first (a cancelled turn)
//   is withdrawn from the client.
//
// Only typed event fields are read; nothing parses text the core formatted for people.
import type { AgentContext, ClientCapabilities, PermissionOption, SessionUpdate, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { Engine } from '../core/engine.js';
import type { CoreEvent, EventOf } from '../core/events.js';
import type { SessionStore } from '../core/store/index.js';
import { askAction } from '../core/permission/ask-title.js';
import { planFrom, teamPlan, textContent, toolDiff, toolKind, toolLocations, toolTitle } from './translate.js';

interface SessionInfo {
  agent: string;
  description: string | null;
  /** The parent's `task` call that started this session (null for a root). */
  toolCallId: string | null;
}

/** What the editor is shown of one running sub-agent, on its root-level task call. */
interface ChildProgress {
  /** The child's session id: an editor sends it a prompt to steer it (DESIGN §23). */
  sessionId?: string;
  agent: string;
  description: string | null;
  status: string;
  toolCalls: number;
  latest: string[];
  tokens: number;
}

const LATEST_TOOLS = 3;
const OUTPUT_LIMIT = 8_000;

export interface BridgeOptions {
  client: AgentContext;
  store: SessionStore;
  log: (line: string) => void;
}

export class Bridge {
  /** Root sessions the editor opened (new or loaded): only their trees are forwarded. */
  private readonly roots = new Set<string>();
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly inputs = new Map<string, { tool: string; input: unknown }>();
  /** By root-level task call id. */
  private readonly children = new Map<string, ChildProgress>();
  /** Task calls that have returned (a background task's child may still report on them). */
  private readonly finished = new Set<string>();
  /** Outgoing requests by request/question id, aborted when the core settles them first. */
  private readonly asks = new Map<string, AbortController>();
  private readonly lastStop = new Map<string, string>();
  private capabilities: ClientCapabilities = {};
  /** Every engine: an answer goes to the one whose broker holds the request id. */
  private readonly engines: Engine[] = [];
  /** Notifications go out one after another, in event order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: BridgeOptions) {}

  setClientCapabilities(capabilities: ClientCapabilities | undefined): void {
    this.capabilities = capabilities ?? {};
  }

  open(rootId: string): void {
    this.roots.add(rootId);
  }

  /** Forwards this engine's events and routes answers to it. */
  track(engine: Engine): void {
    this.engines.push(engine);
    engine.on((event) => {
      try {
        this.handle(engine, event);
      } catch (err) {
        this.options.log(`acp: could not forward a ${event.type} event: ${String(err)}`);
      }
    });
  }

  /** A new turn starts: the previous turn's stop reason no longer applies. */
  turnStarted(rootId: string): void {
    this.lastStop.delete(rootId);
  }

  /** The model's stop reason for the root's last message (refusal, max_tokens, ...). */
  lastModelStop(rootId: string): string | undefined {
    return this.lastStop.get(rootId);
  }

  /** Resolves once every update queued so far has been written. */
  flushed(): Promise<void> {
    return this.queue;
  }

  /** Sends updates for a session, after those already queued. */
  send(sessionId: string, ...updates: SessionUpdate[]): void {
    const { client, log } = this.options;
    for (const update of updates) {
      this.queue = this.queue.then(() => client.notify('session/update', { sessionId, update })).catch((err: unknown) => log(`acp: session/update failed: ${String(err)}`));
    }
  }

  private handle(engine: Engine, event: CoreEvent): void {
    if (event.type === 'session.created') {
      this.sessions.set(event.session_id, { agent: event.agent, description: event.task_description, toolCallId: event.tool_call_id });
    }
    const root = event.path[0]!;
    if (!this.roots.has(root)) return;
    const own = event.session_id === root;
    switch (event.type) {
      case 'text.delta':
        if (own) this.send(root, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
        break;
      case 'thinking.delta':
        if (own) this.send(root, { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } });
        break;
      case 'message.completed':
        if (own) this.lastStop.set(root, event.stop_reason);
        else this.childTokens(event);
        break;
      case 'tool.started':
        if (own) this.toolStarted(engine, event);
        else this.childTool(event);
        break;
      case 'tool.progress':
        if (own) this.toolProgress(event);
        break;
      case 'tool.completed':
        if (own) this.toolCompleted(engine, event);
        break;
      case 'session.status':
        if (!own) this.childStatus(event);
        break;
      case 'permission.asked':
        this.askPermission(event);
        break;
      case 'question.asked':
        this.askQuestion(event);
        break;
      case 'permission.replied':
        this.withdraw(event.request_id);
        break;
      case 'question.answered':
        this.withdraw(event.question_id);
        break;
      case 'team.task':
        // Whichever session of the tree changed it, the editor's plan is the team's whole list.
        this.send(root, { sessionUpdate: 'plan', entries: teamPlan(engine.teamTasks(root)) });
        break;
      default:
        break;
    }
  }

  private toolStarted(engine: Engine, event: EventOf<'tool.started'>): void {
    const root = event.session_id;
    this.inputs.set(event.call_id, { tool: event.tool, input: event.input });
    if (event.tool === 'todowrite') {
      const entries = planFrom(event.input);
      if (entries) this.send(root, { sessionUpdate: 'plan', entries });
    }
    const locations = toolLocations(event.input, engine.cwd);
    this.send(root, {
      sessionUpdate: 'tool_call',
      toolCallId: event.call_id,
      title: toolTitle(event.tool, event.input),
      kind: toolKind(event.tool),
      status: 'in_progress',
      rawInput: event.input,
      content: toolDiff(event.tool, event.input, engine.cwd),
      ...(locations.length ? { locations } : {}),
    });
  }

  private toolProgress(event: EventOf<'tool.progress'>): void {
    if (event.tool !== 'task') return;
    const m: Record<string, unknown> = event.metadata;
    const child = this.childFor(event.call_id, typeof m.agent === 'string' ? m.agent : 'sub-agent');
    if (typeof m.status === 'string') child.status = m.status;
    if (typeof m.tool_calls === 'number') child.toolCalls = m.tool_calls;
    if (typeof m.session_id === 'string') child.sessionId = m.session_id;
    this.sendChild(event.session_id, event.call_id, child);
  }

  private toolCompleted(engine: Engine, event: EventOf<'tool.completed'>): void {
    const started = this.inputs.get(event.call_id);
    this.inputs.delete(event.call_id);
    const output = event.output.length > OUTPUT_LIMIT ? `${event.output.slice(0, OUTPUT_LIMIT)}\n…` : event.output;
    let content: ToolCallContent[] = [textContent(output)];
    if (!event.is_error && started && (event.tool === 'edit' || event.tool === 'write')) {
      const diff = toolDiff(event.tool, started.input, engine.cwd);
      if (diff.length) content = diff;
    }
    const child = event.tool === 'task' ? this.children.get(event.call_id) : undefined;
    if (child) {
      // A task sent to the background keeps reporting on its (finished) call.
      this.finished.add(event.call_id);
      if (event.metadata && 'state' in event.metadata) child.status = String(event.metadata.state);
      content = [textContent(progressText(child)), ...content];
    }
    this.send(event.session_id, {
      sessionUpdate: 'tool_call_update',
      toolCallId: event.call_id,
      status: event.is_error ? 'failed' : 'completed',
      content,
      rawOutput: { output: event.output, ...(event.metadata ? { metadata: event.metadata } : {}), ...(child ? { child: progressRecord(child) } : {}) },
    });
  }

  /** The root-level task call a descendant session works under (its path's first child). */
  private taskCallOf(path: readonly string[]): string | undefined {
    const first = path[1];
    if (!first) return undefined;
    return this.sessions.get(first)?.toolCallId ?? this.options.store.getSession(first)?.tool_call_id ?? undefined;
  }

  private childFor(callId: string, agent: string): ChildProgress {
    let child = this.children.get(callId);
    if (!child) {
      const input = this.inputs.get(callId)?.input;
      const description = input && typeof input === 'object' && 'description' in input && typeof input.description === 'string' ? input.description : null;
      child = { agent, description, status: 'queued', toolCalls: 0, latest: [], tokens: 0 };
      this.children.set(callId, child);
    }
    return child;
  }

  private childTool(event: EventOf<'tool.started'>): void {
    const callId = this.taskCallOf(event.path);
    if (!callId) return;
    const child = this.childFor(callId, this.sessions.get(event.path[1]!)?.agent ?? event.agent);
    const who = event.path.length > 2 ? `${event.agent}: ` : '';
    child.latest = [...child.latest, `${who}${toolTitle(event.tool, event.input)}`].slice(-LATEST_TOOLS);
    // The task's own progress events carry the authoritative count; this keeps it current in between.
    if (event.session_id === event.path[1]) child.toolCalls += 1;
    this.sendChild(event.path[0]!, callId, child);
  }

  private childTokens(event: EventOf<'message.completed'>): void {
    const callId = this.taskCallOf(event.path);
    if (!callId) return;
    const child = this.childFor(callId, event.agent);
    const u = event.usage;
    child.tokens += u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens + u.output_tokens;
    this.sendChild(event.path[0]!, callId, child);
  }

  private childStatus(event: EventOf<'session.status'>): void {
    // The direct child's status; deeper ones show through their own task calls' progress.
    if (event.path.length !== 2) return;
    const callId = this.taskCallOf(event.path);
    if (!callId) return;
    const child = this.childFor(callId, event.agent);
    child.status = event.status;
    this.sendChild(event.path[0]!, callId, child);
  }

  private sendChild(root: string, callId: string, child: ChildProgress): void {
    this.send(root, {
      sessionUpdate: 'tool_call_update',
      toolCallId: callId,
      ...(this.finished.has(callId) ? {} : { status: 'in_progress' as const }),
      content: [textContent(progressText(child))],
      rawOutput: progressRecord(child),
    });
  }

  /** `build › explore (Find API routes)`: who is asking, from the root down. */
  label(path: readonly string[]): string {
    return path
      .map((id) => {
        const known = this.sessions.get(id);
        const row = known ? undefined : this.options.store.getSession(id);
        const agent = known?.agent ?? row?.agent ?? 'agent';
        const description = known ? known.description : (row?.task_description ?? null);
        return description ? `${agent} (${description})` : agent;
      })
      .join(' › ');
  }

  private toolCallFor(callId: string | undefined, fallbackId: string, title: string, tool: string): ToolCallUpdate {
    const started = callId ? this.inputs.get(callId) : undefined;
    return {
      toolCallId: callId ?? fallbackId,
      title,
      kind: toolKind(tool),
      status: 'pending',
      ...(started ? { rawInput: started.input } : {}),
    };
  }

  private askPermission(event: EventOf<'permission.asked'>): void {
    const root = event.path[0]!;
    const controller = new AbortController();
    this.asks.set(event.request_id, controller);
    const always = event.always?.length ? event.always : event.patterns;
    const options: PermissionOption[] = [
      { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'always', name: `Always allow ${always.join(', ')}`, kind: 'allow_always' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ];
    // The title says who wants to do what, in one line (`build › general (…): write CHANGELOG.md`);
    // why a rule-allowed request is still asked (a control file) comes right after: it is the point.
    // The diff or the whole command goes in the content.
    const outside = event.outside_sandbox ? ` (runs outside the sandbox: ${event.outside_sandbox})` : '';
    const why = event.reason ? ` — ${event.reason}` : '';
    const title = `${this.label(event.path)}: ${askAction(event)}${why}${outside}`;
    // A child's call was never announced on the root's stream: the request describes it fully.
    const toolCall: ToolCallUpdate = { ...this.toolCallFor(event.call_id, event.request_id, title, event.tool), content: [textContent(event.subject)] };
    this.queue = this.queue.then(() => {
      void this.options.client
        .request('session/request_permission', { sessionId: root, toolCall, options }, { cancellationSignal: controller.signal, stopWaitingOnCancel: true })
        .then((res) => {
          const choice = res.outcome.outcome === 'selected' ? res.outcome.optionId : 'reject';
          const reply = choice === 'once' || choice === 'always' ? choice : 'reject';
          this.settle(event.request_id, () => this.engineReply(event.request_id, reply));
        })
        .catch((err: unknown) => {
          if (controller.signal.aborted) return;
          this.options.log(`acp: session/request_permission failed, rejecting: ${String(err)}`);
          this.settle(event.request_id, () => this.engineReply(event.request_id, 'reject'));
        });
    });
  }

  private askQuestion(event: EventOf<'question.asked'>): void {
    const root = event.path[0]!;
    const controller = new AbortController();
    this.asks.set(event.question_id, controller);
    const message = `${this.label(event.path)} asks: ${event.question}`;
    const answer = (text: string | undefined) =>
      this.settle(event.question_id, () => {
        if (text === undefined) this.engineDecline(event.question_id);
        else this.engineAnswer(event.question_id, text);
      });
    const failed = (err: unknown) => {
      if (controller.signal.aborted) return;
      this.options.log(`acp: could not ask the question, declining: ${String(err)}`);
      answer(undefined);
    };
    const form = this.capabilities.elicitation?.form;
    this.queue = this.queue.then(() => {
      if (form) {
        const property = event.options.length
          ? { type: 'string' as const, title: event.question, oneOf: event.options.map((o) => ({ const: o, title: o })) }
          : { type: 'string' as const, title: event.question };
        void this.options.client
          .request('elicitation/create', { mode: 'form', sessionId: root, message, requestedSchema: { type: 'object', properties: { answer: property }, required: ['answer'] } }, { cancellationSignal: controller.signal, stopWaitingOnCancel: true })
          .then((res) => {
            const value = res.action === 'accept' && 'content' in res && res.content && typeof res.content === 'object' ? (res.content as Record<string, unknown>).answer : undefined;
            answer(typeof value === 'string' && value.length ? value : undefined);
          })
          .catch(failed);
        return;
      }
      const options: PermissionOption[] = [
        ...event.options.map((o, i) => ({ optionId: `answer-${i}`, name: o, kind: 'allow_once' as const })),
        { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
      ];
      const toolCall: ToolCallUpdate = { toolCallId: event.question_id, title: message, kind: 'other', status: 'pending', rawInput: { question: event.question, options: event.options } };
      void this.options.client
        .request('session/request_permission', { sessionId: root, toolCall, options }, { cancellationSignal: controller.signal, stopWaitingOnCancel: true })
        .then((res) => {
          const id = res.outcome.outcome === 'selected' ? res.outcome.optionId : 'decline';
          const index = /^answer-(\d+)$/.exec(id)?.[1];
          answer(index === undefined ? undefined : event.options[Number(index)]);
        })
        .catch(failed);
    });
  }

  private engineReply(id: string, reply: 'once' | 'always' | 'reject'): void {
    for (const engine of this.engines) if (engine.replyPermission(id, reply)) return;
  }
  private engineAnswer(id: string, text: string): void {
    for (const engine of this.engines) if (engine.answerQuestion(id, text)) return;
  }
  private engineDecline(id: string): void {
    for (const engine of this.engines) if (engine.declineQuestion(id)) return;
  }

  private settle(id: string, act: () => void): void {
    if (!this.asks.delete(id)) return;
    act();
  }

  /** The core settled an ask (answered, or its turn cancelled): take it back from the editor. */
  private withdraw(id: string): void {
    const controller = this.asks.get(id);
    if (!controller) return;
    this.asks.delete(id);
    controller.abort();
  }
}

function progressText(child: ChildProgress): string {
  const head = [
    child.description ? `${child.agent} (${child.description})` : child.agent,
    child.status,
    `${child.toolCalls} tool call${child.toolCalls === 1 ? '' : 's'}`,
    ...(child.tokens ? [`${child.tokens.toLocaleString('en-US')} tokens`] : []),
  ].join(' · ');
  return child.latest.length ? `${head}\nlatest: ${child.latest.join(', ')}` : head;
}

function progressRecord(child: ChildProgress): Record<string, unknown> {
  return { ...(child.sessionId ? { session_id: child.sessionId } : {}), agent: child.agent, description: child.description, status: child.status, tool_calls: child.toolCalls, latest_tools: child.latest, tokens: child.tokens };
}
