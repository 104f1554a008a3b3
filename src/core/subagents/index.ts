/*
 * Sub-agents: the `task` tool and everything behind it (DESIGN §7).
 *
 * Contract
 * - Spawn: a `task` call names a sub-agent (mode `subagent` or `all`); anything else is an
 *   error result listing the available ones. Only a call made for the user (a subtask
 *   command) may run a primary agent as a child. The child session row (parent_id, tool_call_id,
 *   task_description, agent, status `queued`) exists before the child runs; its history
 *   starts with only the prompt; its system prompt is its own agent's, never the parent's,
 *   unless `task.system_prompt` gives it an ad-hoc identity in place of the agent's prompt
 *   (stored on the child row, so a resume keeps it; a resume may replace it).
 * - Model: `task.model` > the agent's `model` > the parent's current model.
 * - Gate A, tools: the agent's allowlist ∩ the parent's tools ∩ `task.tools`. `task` exists
 *   only while depth < subagents.max_depth; todo tools only at depth 0 unless the agent
 *   lists them; `ask_user` always.
 * - Gate B, permissions: a child's rules are evaluated together with every ancestor's and
 *   the strictest wins (deny > ask > allow). "Always allow" covers the whole tree.
 * - Task rules: `permission.task` is matched against the sub-agent type, over the calling
 *   session's chain (config, its agent, every ancestor). deny → an error result naming the
 *   type; ask → the normal approval route from the calling session. A subtask the user
 *   starts (a command, `@agent`) is their consent: it is never asked, but deny still holds.
 * - `task.tools` takes names and globs; a call whose list leaves the child no tool is an
 *   error result listing what the sub-agent could have, not a child with only `ask_user`.
 * - Routing: a child's questions and permission asks go to closures its parent gave it,
 *   which forward to the parent's own; the root hands them to the broker. With
 *   `approvals: "deny"` a child's ask becomes a denial.
 * - Parallel: the task calls of one message start together; at most max_concurrency run per
 *   parent turn (the rest wait as `queued`), calls beyond max_per_batch are refused.
 * - Limits: max_turns (call > agent > config) and timeout_seconds stop a child; its last
 *   text comes back with a note saying why.
 * - Cancel: a foreground child's turn is linked to its parent's, so cancelling the parent
 *   cancels it and its processes; cancelling the child alone gives `state="cancelled"`.
 * - Background: the call returns `state="running"` at once; the result is delivered to the
 *   parent later as a message, starting a parent turn if the parent is idle.
 * - Resume: `session_id` continues a child of the calling session with its full history. Every
 *   continuation (a resume, the user's follow-up) keeps what the first call fixed — its
 *   `tools` narrowing, isolation and `max_turns`, read back from that call in the parent's
 *   stored history (./first-call.ts); agent, model and identity are on the child's row. A
 *   continuation may tighten them, never loosen them. If the first call cannot be found, the
 *   agent definition's own limits apply.
 * - Steering (DESIGN §23): `session_id` of a child still running (or waiting for a slot) in
 *   this process queues `prompt` for its next turn boundary and returns at once, `state="running"`.
 *   `continueChild` does for the user what a resume does for the model, in the background: the
 *   new result reaches the parent like a background result. `detach` sends a running
 *   foreground child to the background: its `task` call returns `state="running"` at once, the
 *   child is no longer cancelled with the parent's turn, and its result follows as a
 *   background result.
 * - Result: the child's last text, then its tool log — the tool calls of this run (a resume
 *   lists only the calls it made; the earlier run's log went out with the earlier result).
 * - Fork (issue 37, ./fork.ts): `fork: true` or `subagent_type: "fork"` starts a child that runs
 *   as its caller's agent, with the caller's model, system prompt and tools (its `task` tool kept
 *   even at the depth limit, where calls to it are refused), starting from the caller's
 *   conversation; `model`, `tools` and `system_prompt` are refused, `permission.task` rules
 *   match it as type "fork". Its row says "fork" in its title; a resume continues it as a fork.
 *   `startUserFork` does it for the user (`/fork`): the call is recorded in the parent's history
 *   as a background `task` call, as a subtask command's is.
 * - Isolation (DESIGN §17): `task.isolation` > the agent's `isolation` > `subagents.isolation`.
 *   "worktree" runs the child (each run, a resume too) in its own git worktree made from the
 *   parent's tree as it is now; its cwd, tools, permission paths, AGENTS.md and its own
 *   children all use it. When the child ends its work is merged back (completed or failed) or
 *   kept on its branch (cancelled), and the result and its metadata carry the merge outcome.
 *   No repository or no git: an error result before any child session exists.
 */
import { dropSteering, queueSteering } from '../agent/inbox.js';
import type { DropReason, LiveSession } from '../agent/live-session.js';
import type { TurnOutcome } from '../agent/loop.js';
import { ConfigError, errorMessage } from '../errors.js';
import { CANCELLED_RESULT } from '../agent/tool-runner.js';
import { allowlistPattern, type AgentDefinition } from '../agents/index.js';
import type { CoreEvent, EventListener, ResultArrival, SessionStatus, TaskOutcome, TaskProgress } from '../events.js';
import type { RemoteCommandRunner } from '../sandbox/index.js';
import type { Message } from '../messages.js';
import type { SessionRow, SessionStore } from '../store/index.js';
import { evaluateChain, rulesFromConfig } from '../permission/rules.js';
import { ToolError, type ToolContext, type ToolResult } from '../tools/types.js';
import { WorkspaceError, type ChildWorktree, type MergeOutcome, type Workspaces } from '../workspace/worktree.js';
import { combineNarrowings, firstCallLimits } from './first-call.js';
import { ASK_USER_TOOL, selectToolNames } from './gates.js';
import { Limiter } from './limiter.js';
import { ParentLink } from './parent-link.js';
import { formatTaskResult, withNote, type TaskState } from './result.js';
import type { TaskArgs } from './task-tool.js';
import { FORK_SUBAGENT_TYPE, forkInput, forkShape, inheritedConversation, isForkCall, type ForkShape } from './fork.js';
import { ToolLogRecorder, type ToolLog } from './tool-log.js';
import { Teammates } from '../team/teammates.js';

export { askUserTool } from './ask-user-tool.js';
export { ASK_USER_TOOL, TASK_TOOL, childRoutes, offeredSubagents, selectToolNames, type ToolGateInput } from './gates.js';
export { Limiter } from './limiter.js';
export { formatTaskResult, withNote, type TaskState } from './result.js';
export { createTaskTool, type TaskArgs } from './task-tool.js';
export { FORK_SUBAGENT_TYPE, forkShape, isForkCall, type ForkShape } from './fork.js';
export { TOOL_LOG_LIMIT, formatToolLog, mainArgument, type ToolLog, type ToolLogEntry, type ToolLogStatus } from './tool-log.js';

export interface SubagentSettings {
  max_depth: number;
  max_concurrency: number;
  max_per_batch: number;
  max_turns: number;
  timeout_seconds: number;
  approvals: 'bubble' | 'deny';
  isolation: Isolation;
  worktree: { link: readonly string[]; pool?: number };
}

export type Isolation = 'none' | 'worktree';

/** What one run of a child is held to: its tools narrowing, where it works and its model requests, and whether it is a fork. */
interface RunLimits {
  narrow: readonly string[] | undefined;
  isolation: Isolation;
  maxTurns: number;
  /** The setting that decided `maxTurns`, named when the child stops at it. */
  maxTurnsKey: string;
  fork: boolean;
}

export interface ChildRunOptions {
  /** Signals that cancel the child's turn: the parent's turn (foreground) and the timeout. */
  links: AbortSignal[];
  /** Why the run was stopped when it was not the user, e.g. a timeout; decides the final status. */
  stopReason(): string | undefined;
  /** Why a turn that reached the child's cap on model requests stopped: the `limited` status's reason. */
  limitReason?(): string;
}

/** The settings that cap a child's model requests, as the user would look them up. */
const TASK_CALL_KEY = "task call's max_turns";
const CONFIG_KEY = 'subagents.max_turns';
const agentKey = (agent: AgentDefinition) => `max_turns in the ${agent.name} agent's definition`;

/** Why a child stopped at its cap: the limit and the setting that raises it. */
export function turnLimitReason(limit: number, key: string): string {
  return `reached its limit of ${limit} model request${limit === 1 ? '' : 's'} (raise ${key})`;
}

/** What the supervisor needs from the engine that owns the sessions. */
export interface SubagentHost {
  readonly settings: SubagentSettings;
  readonly store: SessionStore;
  /** Git worktrees for children run with isolation "worktree". */
  readonly workspaces: Pick<Workspaces, 'check' | 'create' | 'finish'>;
  agent(name: string): AgentDefinition | undefined;
  subagents(): AgentDefinition[];
  resolveModel(name: string | undefined, fallback: string): string;
  /** Creates and announces a child session row. */
  createChild(
    parent: LiveSession,
    fields: { agent: string; title: string; task_description: string; tool_call_id: string; model: string; system_prompt: string | null },
  ): SessionRow;
  /**
   * The live state for a child row, built with gates A and B and the parent's routes; a fork
   * (`fork` given) gets that system prompt and those tools instead (./fork.ts).
   */
  openChild(row: SessionRow, parent: LiveSession, narrow: readonly string[] | undefined, fork?: ForkShape): LiveSession;
  runChild(child: LiveSession, input: Message, opts: ChildRunOptions): Promise<TurnOutcome>;
  isRunning(sessionId: string): boolean;
  /** The session held in memory by this engine, if any. */
  liveSession(sessionId: string): LiveSession | undefined;
  onEvent(listener: EventListener): () => void;
  /** Hands a finished background task's result to its parent session, announcing who sent it. */
  deliver(parent: LiveSession, text: string, arrival: ResultArrival): void;
  /** Keeps the process alive (and `run` waiting) until background work ends. */
  trackBackground(rootId: string, work: Promise<unknown>): void;
  /**
   * A child starts (its start snapshot is taken before its first change to the project's files)
   * or ends (its end snapshot, when it changed any) (DESIGN §18); never throws.
   */
  checkpoint(sessionId: string, phase: 'start' | 'end'): Promise<void>;
  /** Resolves once the snapshots that must precede an isolated child's merge into the project exist; never throws. */
  beforeMerge(sessionId: string): Promise<void>;
  /** Records the project files an isolated child's merge changed (`files` relative to `topLevel`), as its own. */
  merged(sessionId: string, topLevel: string, files: readonly string[], fromAt: number): void;
  /** Starts the container a child with `runner: docker` runs its commands in (DESIGN §25); throws one sentence naming each host and why. */
  startContainer(child: LiveSession): Promise<RemoteCommandRunner>;
  /** Removes that container; never throws. */
  stopContainer(child: LiveSession): Promise<void>;
  /** What teammates need besides (DESIGN §24, team/teammates.ts). */
  readonly team: {
    readonly maxTeammates: number;
    /** A session held in memory, opened from the store when it is not (the lead of a team from before a restart). */
    open(sessionId: string): LiveSession;
    /** Announces a stored session's new status (`session.status`) when it may not be in memory. */
    emitStatus(sessionId: string, status: SessionStatus): void;
  };
}

/** `task.tools` as gate A matches it: our names (aliases mapped) and globs; rules are refused. */
function narrowing(tools: readonly string[]): string[] {
  return tools.map((raw) => {
    if (/\(.*\)\s*$/s.test(raw)) {
      throw new ToolError(
        `task.tools takes tool names or globs, not rules like "${raw}"; such limits belong in the sub-agent's own definition. The task was not started.`,
      );
    }
    return allowlistPattern(raw) ?? raw.trim().toLowerCase();
  });
}

export class SubagentSupervisor {
  /** One limiter per parent turn: children of different turns or parents do not share slots. */
  private readonly limiters = new WeakMap<AbortSignal, Limiter>();
  /** Which setting capped each running child's model requests. */
  private readonly maxTurnsKeys = new WeakMap<LiveSession, string>();
  /** Children with a task under way (queued or running): a second resume must wait. */
  private readonly claimed = new Set<string>();
  /** Running foreground children, by id: each one's way to the background (`detach`). */
  private readonly detachers = new Map<string, () => void>();
  /** Messages a parent's `task(session_id)` queued that its child never read, told in the child's next result. */
  private readonly undelivered = new Map<string, Array<{ text: string; reason: DropReason }>>();
  /** Sessions opened as forks by this supervisor (a fork's row says so only in its title). */
  private readonly forks = new Set<string>();

  /** Teammates (`task` with `name`, DESIGN §24): the team's scheduler of idle and wake. */
  readonly team: Teammates;

  constructor(private readonly host: SubagentHost) {
    this.team = new Teammates(host, {
      prepare: async (parent, args, ctx) => {
        const agent = this.spawnableAgent(args, ctx);
        const narrow = args.tools === undefined ? undefined : narrowing(args.tools);
        this.checkNarrowing(parent, agent, narrow);
        await this.authorize(parent, agent, args.description, ctx);
        const isolation = this.isolationOf(args, agent);
        if (isolation === 'worktree') await this.checkWorkspace(parent);
        const { settings } = this.host;
        const max_turns = args.max_turns ?? agent.maxTurns ?? settings.max_turns;
        const max_turns_key = args.max_turns !== undefined ? TASK_CALL_KEY : agent.maxTurns !== undefined ? agentKey(agent) : CONFIG_KEY;
        return { agent: agent.name, spawn: { ...(narrow ? { narrow } : {}), isolation, max_turns, max_turns_key } };
      },
      createRow: (parent, agentName, args, ctx) => {
        const agent = this.host.agent(agentName)!;
        const model = this.host.resolveModel(args.model ?? agent.model, parent.model);
        return this.host.createChild(parent, {
          agent: agent.name,
          title: `${args.description} (@${agent.name} teammate ${args.name ?? ''})`.replace(/ \)$/, ')'),
          task_description: args.description,
          tool_call_id: ctx.callId,
          model,
          system_prompt: args.system_prompt ?? null,
        });
      },
      createWorktree: (parent, childId) => this.createWorktree(parent, childId),
      turnLimitReason,
    });
  }

  /** Available to the model as sub-agent types, in a stable order. */
  catalogue(): AgentDefinition[] {
    return this.host.subagents();
  }

  async runTask(parent: LiveSession, args: TaskArgs, ctx: ToolContext): Promise<ToolResult> {
    const { settings } = this.host;
    if ((ctx.batchIndex ?? 0) >= settings.max_per_batch) {
      throw new ToolError(
        `Too many tasks in one message: at most ${settings.max_per_batch} start per message (subagents.max_per_batch), so this one was not started. Send it again once the others have finished.`,
      );
    }
    // A teammate (DESIGN §24): its own scheduler (team/teammates.ts).
    if (args.name !== undefined) return this.team.task(parent, { ...args, name: args.name }, ctx);
    // Only a fork at the depth limit holds `task` (kept so its tools match its caller's): it may start nothing.
    if (parent.depth >= settings.max_depth) {
      throw new ToolError(
        `You are at depth ${parent.depth}, and sessions there cannot start sub-agents or forks (subagents.max_depth is ${settings.max_depth}); do the work yourself.`,
      );
    }
    // With session_id the call continues a task, a fork or not, whatever it says of forks.
    const fork = !args.session_id && isForkCall(args);
    if (fork) checkForkArgs(args);
    if (args.session_id) {
      const delivered = this.steerRunningChild(parent, args.session_id, args.prompt);
      if (delivered) return delivered;
    }
    let row: SessionRow;
    let agent: AgentDefinition;
    let limits: RunLimits;
    /** A new fork's inherited conversation, taken before anything awaits. */
    let inherited: Message[] | undefined;
    if (args.session_id) {
      ({ row, agent } = this.resumable(parent, args.session_id));
      // Claimed before anything awaits, so two calls in one message cannot resume the same child.
      this.claimed.add(row.id);
      try {
        limits = this.continuationLimits(parent, row, agent, args);
        this.checkNarrowing(parent, agent, limits.narrow);
        await this.authorize(parent, agent, args.description, ctx);
        if (limits.isolation === 'worktree') await this.checkWorkspace(parent);
      } catch (err) {
        this.claimed.delete(row.id);
        throw err;
      }
    } else if (fork) {
      inherited = inheritedConversation(parent);
      agent = this.forkAgent(parent);
      limits = {
        narrow: undefined,
        isolation: this.isolationOf(args, agent),
        maxTurns: args.max_turns ?? agent.maxTurns ?? settings.max_turns,
        maxTurnsKey: args.max_turns !== undefined ? TASK_CALL_KEY : agent.maxTurns !== undefined ? agentKey(agent) : CONFIG_KEY,
        fork: true,
      };
      await this.authorize(parent, agent, args.description, ctx, FORK_SUBAGENT_TYPE);
      if (limits.isolation === 'worktree') await this.checkWorkspace(parent);
      row = this.createRow(parent, agent, args, ctx, true);
      this.claimed.add(row.id);
      // The conversation is the fork's own from here: a resume or a restart reads it back.
      for (const message of inherited) this.host.store.appendMessage(row.id, message);
    } else {
      agent = this.spawnableAgent(args, ctx);
      limits = {
        narrow: args.tools === undefined ? undefined : narrowing(args.tools),
        isolation: this.isolationOf(args, agent),
        maxTurns: args.max_turns ?? agent.maxTurns ?? settings.max_turns,
        maxTurnsKey: args.max_turns !== undefined ? TASK_CALL_KEY : agent.maxTurns !== undefined ? agentKey(agent) : CONFIG_KEY,
        fork: false,
      };
      this.checkNarrowing(parent, agent, limits.narrow);
      // Asked before the child exists, so a refusal leaves no session behind.
      await this.authorize(parent, agent, args.description, ctx);
      if (limits.isolation === 'worktree') await this.checkWorkspace(parent);
      row = this.createRow(parent, agent, args, ctx);
      this.claimed.add(row.id);
    }
    const childId = row.id;
    const release = () => this.claimed.delete(childId);
    let worktree: ChildWorktree | undefined;
    if (limits.isolation === 'worktree') {
      try {
        worktree = await this.createWorktree(parent, childId);
      } catch (err) {
        release();
        // A child that never ran is marked failed; a continued one keeps the status of its last run.
        if (!args.session_id) this.host.store.updateSession(childId, { status: 'failed', error: errorMessage(err) });
        throw err;
      }
      // Its tools, permission paths, instructions and own children all start from here.
      row = { ...row, cwd: worktree.cwd };
    }
    // A resume that brings a new identity keeps it for later resumes too; openChild reads the row.
    if (args.session_id && args.system_prompt !== undefined) {
      this.host.store.updateSession(row.id, { system_prompt: args.system_prompt });
      row = { ...row, system_prompt: args.system_prompt };
    }
    const child = this.host.openChild(row, parent, limits.narrow, this.shapeOf(parent, limits));
    child.maxTurns = limits.maxTurns;
    this.maxTurnsKeys.set(child, limits.maxTurnsKey);
    if (limits.fork) this.forks.add(child.id);
    if (args.model && args.session_id) {
      child.model = this.host.resolveModel(args.model, parent.model);
      this.host.store.updateSession(child.id, { model: child.model });
    }

    const input: Message = inherited
      ? forkInput(inherited, args.prompt, { worktree: worktree ? { cwd: worktree.cwd, parentCwd: parent.cwd } : undefined })
      : { role: 'user', content: [{ type: 'text', text: args.prompt }] };
    const progress = this.trackProgress(child, ctx);
    // An agent written `background: true` always runs in the background (Claude Code's field).
    if (args.run_in_background || agent.background) {
      const work = this.execute(parent, child, input, progress.log, undefined, worktree).finally(() => {
        progress.stop();
        release();
      });
      this.deliverLater(parent, work, `Background task "${args.description}" (${agent.name}) has finished`, { child, description: args.description });
      return this.runningResult(child, 'Started in the background. Its result will arrive as a message when it finishes; you may go on meanwhile.');
    }
    const link = new ParentLink(parent.controller.signal);
    let toBackground: () => void = () => {};
    const detached = new Promise<undefined>((resolve) => {
      toBackground = () => resolve(undefined);
    });
    this.detachers.set(child.id, () => {
      link.cut();
      child.emit('session.detached', { parent_id: parent.id, tool_call_id: ctx.callId });
      toBackground();
    });
    const work = this.execute(parent, child, input, progress.log, link, worktree).finally(() => {
      this.detachers.delete(child.id);
      link.cut();
      progress.stop();
      release();
    });
    const finished = await Promise.race([work, detached]);
    if (finished) return finished;
    this.deliverLater(parent, work, `Background task "${args.description}" (${agent.name}) has finished`, { child, description: args.description });
    return this.runningResult(child, 'The user moved this task to the background. Its result will arrive as a message when it finishes; you may go on meanwhile.');
  }

  /**
   * Sends a running foreground child to the background (Ctrl+B): its `task` call returns
   * `state="running"` now and its result follows as a background result. False when the
   * session is not a foreground child running in this process.
   */
  detach(sessionId: string): boolean {
    const detach = this.detachers.get(sessionId);
    if (!detach) return false;
    this.detachers.delete(sessionId);
    detach();
    return true;
  }

  /** A foreground child that `detach` can send to the background. */
  isDetachable(sessionId: string): boolean {
    return this.detachers.has(sessionId);
  }

  /** A child with a task under way here: queued for a slot, running, or between its turns. */
  isUnderWay(sessionId: string): boolean {
    return this.claimed.has(sessionId);
  }

  /**
   * Continues a finished child with the user's message, as `task` with its `session_id` would,
   * in the background: its new result reaches `parent` like a background result (DESIGN §23).
   */
  continueChild(parent: LiveSession, row: SessionRow, text: string): void {
    // A teammate's view: the message wakes it (DESIGN §24), as any message to it would.
    const member = this.host.store.teamMembers.get(row.id);
    if (member) return this.team.messageFromUser(member, text);
    if (this.claimed.has(row.id) || this.host.isRunning(row.id)) {
      throw new ConfigError(`Sub-agent ${row.id} is running already; the message can only be queued for it.`);
    }
    const agent = this.host.agent(row.agent);
    if (!agent) throw new ConfigError(`Cannot continue sub-agent ${row.id}: its agent "${row.agent}" no longer exists.`);
    const limits = this.continuationLimits(parent, row, agent, {});
    this.claimed.add(row.id);
    const log = watchToolLog(this.host.onEvent, row.id);
    const input: Message = { role: 'user', content: [{ type: 'text', text }] };
    const work = (async () => {
      // An isolated child works in a new worktree from the parent's tree as it is now, merged back the same way.
      const worktree = limits.isolation === 'worktree' ? await this.createWorktree(parent, row.id) : undefined;
      const child = this.host.openChild(worktree ? { ...row, cwd: worktree.cwd } : row, parent, limits.narrow, this.shapeOf(parent, limits));
      child.maxTurns = limits.maxTurns;
      this.maxTurnsKeys.set(child, limits.maxTurnsKey);
      if (limits.fork) this.forks.add(child.id);
      child.emit('message.delivered', { text, sender: 'user', continued: true });
      return this.execute(parent, child, input, log.log, undefined, worktree);
    })().finally(() => {
      log.stop();
      this.claimed.delete(row.id);
    });
    const description = row.task_description ?? agent.name;
    this.deliverLater(parent, work, `The user sent a follow-up to task "${description}" (${agent.name}); it has finished again`, {
      child: { id: row.id, agentName: agent.name },
      description,
      followUp: true,
    });
  }

  /**
   * `task` with the `session_id` of a child of the caller that is under way in this process:
   * `prompt` is queued for its next turn boundary and the call returns at once.
   */
  private steerRunningChild(parent: LiveSession, sessionId: string, prompt: string): ToolResult | undefined {
    const row = this.host.store.getSession(sessionId);
    if (!row || row.parent_id !== parent.id) return undefined;
    const child = this.host.liveSession(row.id);
    if (!child || !(this.claimed.has(row.id) || this.host.isRunning(row.id))) return undefined;
    queueSteering(child, {
      text: prompt,
      sender: 'parent',
      // Said in the task's result: a parent must not believe a message arrived that never did.
      settle: (fate) => {
        if (!fate.delivered) this.undelivered.set(child.id, [...(this.undelivered.get(child.id) ?? []), { text: prompt, reason: fate.reason }]);
      },
    });
    return this.runningResult(child, 'Message delivered: the sub-agent is still running and reads it at its next step. Its result will come back to you as before.');
  }

  /** The result body, with a note naming each message of the parent's that the child never read. */
  private withUndelivered(childId: string, body: string): string {
    const dropped = this.undelivered.get(childId);
    if (!dropped) return body;
    this.undelivered.delete(childId);
    const why = (reason: DropReason) => (reason === 'cancelled' ? 'it was cancelled before its next step' : 'it had finished before its next step');
    const lines = dropped.map((d) => `Your message sent to it while it ran was not delivered (${why(d.reason)}): "${d.text}"`);
    return withNote(body, lines.join('\n'));
  }

  /** Hands a task's eventual result to its parent as a background result, counted against the root until then. */
  private deliverLater(
    parent: LiveSession,
    work: Promise<ToolResult>,
    heading: string,
    from: { child: Pick<LiveSession, 'id' | 'agentName'>; description: string; followUp?: boolean },
  ): void {
    const delivery = work
      .then((result) =>
        this.host.deliver(parent, `${heading}:\n${result.output}`, {
          child_id: from.child.id,
          child_agent: from.child.agentName,
          description: from.description,
          state: resultState(result),
          follow_up: from.followUp ?? false,
        }),
      )
      .catch((err: unknown) => parent.emit('error', { message: errorMessage(err) }));
    this.host.trackBackground(parent.path[0]!, delivery);
  }

  private runningResult(child: LiveSession, body: string): ToolResult {
    return {
      output: formatTaskResult(child.id, 'running', body),
      metadata: { session_id: child.id, state: 'running', agent: child.agentName, ...this.forkMark(child) } satisfies TaskOutcome,
    };
  }

  /** Said on a fork's outcome, so the UI, ACP and the library can tell it from an ordinary child. */
  private forkMark(child: LiveSession): { fork?: true } {
    return this.forks.has(child.id) ? { fork: true } : {};
  }

  /**
   * The limits a continued child runs with: those its first call fixed (DESIGN §7: a call can
   * narrow, never widen), tightened — never loosened — by this call's. When the first call
   * cannot be found, its agent definition's own limits stand in for it.
   */
  private continuationLimits(parent: LiveSession, row: SessionRow, agent: AgentDefinition, call: Pick<TaskArgs, 'tools' | 'isolation' | 'max_turns'>): RunLimits {
    const { settings, store } = this.host;
    const first = row.parent_id ? firstCallLimits(store.messageRows(row.parent_id), row.tool_call_id) : undefined;
    const narrow = combineNarrowings(
      first?.tools ? narrowing(first.tools) : undefined,
      call.tools ? narrowing(call.tools) : undefined,
      parent.tools.map((t) => t.name),
    );
    const firstIsolation = first?.isolation ?? agent.isolation ?? settings.isolation;
    const isolation: Isolation = firstIsolation === 'worktree' || call.isolation === 'worktree' ? 'worktree' : 'none';
    const cap = first?.max_turns ?? agent.maxTurns ?? settings.max_turns;
    const capKey = first?.max_turns !== undefined ? `the first ${TASK_CALL_KEY}` : agent.maxTurns !== undefined ? agentKey(agent) : CONFIG_KEY;
    if (call.max_turns !== undefined && call.max_turns < cap) return { narrow, isolation, maxTurns: call.max_turns, maxTurnsKey: TASK_CALL_KEY, fork: first?.fork === true };
    return { narrow, isolation, maxTurns: cap, maxTurnsKey: capKey, fork: first?.fork === true };
  }

  /** A fork, resumed too, repeats the system prompt and tools of the session calling it now. */
  private shapeOf(parent: LiveSession, limits: RunLimits): ForkShape | undefined {
    return limits.fork ? forkShape(parent) : undefined;
  }

  /** The agent a fork runs as: its caller's own. */
  private forkAgent(parent: LiveSession): AgentDefinition {
    const agent = this.host.agent(parent.agentName);
    if (!agent) throw new ToolError(`Cannot fork: your agent "${parent.agentName}" is no longer defined.`);
    return agent;
  }

  /** A fresh worktree from the parent's tree as it is now; a failure is an error result naming why. */
  private async createWorktree(parent: LiveSession, childId: string): Promise<ChildWorktree> {
    try {
      return await this.host.workspaces.create(parent.cwd, childId, this.host.settings.worktree.link, this.host.settings.worktree.pool);
    } catch (err) {
      throw new ToolError(`${errorMessage(err)} The task was not started.`);
    }
  }

  /** Call > agent > config. */
  private isolationOf(args: TaskArgs, agent: AgentDefinition): Isolation {
    return args.isolation ?? agent.isolation ?? this.host.settings.isolation;
  }

  /** Refuses isolation where it cannot work (no repository, no git) before a child exists. */
  private async checkWorkspace(parent: LiveSession): Promise<void> {
    try {
      await this.host.workspaces.check(parent.cwd);
    } catch (err) {
      if (err instanceof WorkspaceError) throw new ToolError(`${err.message} The task was not started.`);
      throw err;
    }
  }

  private spawnableAgent(args: TaskArgs, ctx: ToolContext): AgentDefinition {
    const agent = this.host.agent(args.subagent_type);
    const names = this.catalogue()
      .map((a) => a.name)
      .join(', ');
    if (!agent || agent.disable) throw new ToolError(`Unknown sub-agent type "${args.subagent_type}". Available sub-agents: ${names}.`);
    if (agent.mode === 'primary' && !ctx.byUser) {
      throw new ToolError(`"${agent.name}" is a primary agent and cannot run as a sub-agent. Available sub-agents: ${names}.`);
    }
    return agent;
  }

  private createRow(parent: LiveSession, agent: AgentDefinition, args: TaskArgs, ctx: ToolContext, fork = false): SessionRow {
    // A fork keeps its caller's model: another model would read nothing from the caller's cache.
    const model = fork ? parent.model : this.host.resolveModel(args.model ?? agent.model, parent.model);
    const row = this.host.createChild(parent, {
      agent: agent.name,
      title: `${args.description} (@${agent.name} ${fork ? 'fork' : 'subagent'})`,
      task_description: args.description,
      tool_call_id: ctx.callId,
      model,
      system_prompt: args.system_prompt ?? null,
    });
    return row;
  }

  /** `permission.task` for this sub-agent type, over the calling session's rules and its ancestors'. */
  private async authorize(parent: LiveSession, agent: AgentDefinition, description: string, ctx: ToolContext, type = agent.name): Promise<void> {
    const chain = parent.gate.rulesets;
    if (evaluateChain(chain, 'task', [type]) === 'deny') {
      const permitted = this.catalogue()
        .filter((a) => evaluateChain(chain, 'task', [a.name]) !== 'deny')
        .map((a) => a.name);
      const others = permitted.length ? `Sub-agents you may start: ${permitted.join(', ')}.` : 'No sub-agent type is permitted; do the work yourself.';
      throw new ToolError(`Sub-agent type "${type}" is denied by the permission rules (permission.task), so it was not started. ${others}`);
    }
    // A subtask the user started (a command, `@agent`, `/fork`) is their own consent.
    if (ctx.byUser) return;
    await ctx.ask({ permission: 'task', patterns: [type], subject: `${type}: ${description}`, always: [type] });
  }

  /** Refuses a `task.tools` that would leave the child nothing but `ask_user`, naming what it could have. */
  private checkNarrowing(parent: LiveSession, agent: AgentDefinition, narrow: readonly string[] | undefined): void {
    if (!narrow) return;
    const parentTools = parent.tools.map((t) => t.name);
    const gate = (list: readonly string[] | undefined) =>
      selectToolNames({
        available: parentTools,
        agent,
        // The child's chain starts with its own agent's rules; the config's already apply to the parent.
        chain: [rulesFromConfig(agent.permission), ...parent.gate.rulesets],
        depth: parent.depth + 1,
        maxDepth: this.host.settings.max_depth,
        parentTools,
        narrow: list,
      }).names.filter((n) => n !== ASK_USER_TOOL);
    if (gate(narrow).length > 0) return;
    const available = gate(undefined);
    throw new ToolError(
      `None of the tools ${narrow.map((n) => `"${n}"`).join(', ')} (task.tools) are available to sub-agent "${agent.name}", so it was not started; available: ${available.join(', ') || 'none besides ask_user'}.`,
    );
  }

  private resumable(parent: LiveSession, sessionId: string): { row: SessionRow; agent: AgentDefinition } {
    const row = this.host.store.getSession(sessionId);
    if (!row || row.parent_id !== parent.id) {
      throw new ToolError(
        `Cannot resume "${sessionId}": session_id must be the id of a task started from this session (the id in its <task id="..."> result).`,
      );
    }
    if (this.host.isRunning(row.id) || this.claimed.has(row.id)) {
      throw new ToolError(`Task ${row.id} is still running; wait for its result before sending it more work.`);
    }
    const agent = this.host.agent(row.agent);
    if (!agent) throw new ToolError(`Cannot resume "${sessionId}": its agent "${row.agent}" no longer exists.`);
    return { row, agent };
  }

  private async execute(
    parent: LiveSession,
    child: LiveSession,
    input: Message,
    log: () => ToolLog,
    link: ParentLink | undefined,
    worktree: ChildWorktree | undefined,
  ): Promise<ToolResult> {
    // The project's files around what the child changed, for `sessions revert` and `sessions diff`:
    // its start snapshot is taken before the first change it makes (none when it changes nothing).
    // An isolated child changes them only when its work is merged back: snapshotted just before
    // the merge, so what the parent and its siblings did meanwhile is not counted as the child's.
    await this.host.checkpoint(child.id, 'start');
    // A child whose commands belong in a container gets it once it has a slot, before its first
    // turn (a queued child holds no place on a host); without one it fails, naming each host and
    // why, and never runs its commands on this machine instead.
    let where: { host: string; container: string } | undefined;
    const startContainer = async (): Promise<string | undefined> => {
      if (child.runnerKind !== 'docker') return undefined;
      try {
        child.container = await this.host.startContainer(child);
        where = child.container.where;
        return undefined;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    };
    let outcome: { state: TaskState; body: string };
    try {
      outcome = await this.runToEnd(parent, child, input, link, startContainer);
    } finally {
      if (child.container) await this.host.stopContainer(child);
      child.container = undefined;
    }
    const { state, body } = outcome;
    if (worktree && state !== 'cancelled') await this.host.beforeMerge(child.id);
    // A cancelled child's partial work is kept on its branch, not merged into a tree the user stopped it from changing.
    const mergeStarted = Date.now();
    const merge = worktree ? await this.host.workspaces.finish(worktree, state === 'cancelled' ? 'keep' : 'merge') : undefined;
    if (worktree && merge?.state === 'merged') this.host.merged(child.id, worktree.parent.toplevel, merge.files, mergeStarted);
    await this.host.checkpoint(child.id, 'end');
    // Whatever arrived after its last turn boundary will not be read by this run.
    dropSteering(child, 'finished');
    return this.result(child, state, this.withUndelivered(child.id, body), log(), merge, where);
  }

  /** Waits for a slot, runs the child (cancelled with its parent's turn while `link` holds), and says how it ended. */
  private async runToEnd(
    parent: LiveSession,
    child: LiveSession,
    input: Message,
    link: ParentLink | undefined,
    beforeRun: () => Promise<string | undefined>,
  ): Promise<{ state: TaskState; body: string }> {
    const { settings } = this.host;
    const result = (state: TaskState, body: string) => ({ state, body });
    const parentSignal = parent.controller.signal;
    const limiter = this.limiterFor(parentSignal);
    let release: (() => void) | undefined;
    try {
      // The child's own signal lets it be cancelled alone while it waits for a slot.
      const waitSignal = link ? AbortSignal.any([link.signal, child.controller.signal]) : child.controller.signal;
      // Only a child the limit holds is "queued" with a reason; the others are starting (issue 40).
      const held = limiter.running >= limiter.max;
      if (held) child.emit('session.status', { status: 'queued', reason: `waiting for a free slot (subagents.max_concurrency is ${limiter.max})` });
      release = await limiter.acquire(waitSignal);
      if (held) child.emit('session.status', { status: 'queued' });
    } catch {
      dropSteering(child, 'cancelled');
      this.host.store.updateSession(child.id, { status: 'cancelled' });
      child.emit('session.status', { status: 'cancelled', reason: 'cancelled before it started' });
      return result('cancelled', 'Cancelled before it started.');
    }
    const cannotStart = await beforeRun();
    if (cannotStart !== undefined) {
      release();
      this.host.store.updateSession(child.id, { status: 'failed', error: cannotStart });
      child.emit('session.status', { status: 'failed', reason: cannotStart });
      return result('failed', `Failed: ${cannotStart}`);
    }
    const timeout = AbortSignal.timeout(settings.timeout_seconds * 1000);
    let outcome: TurnOutcome;
    try {
      outcome = await this.host.runChild(child, input, {
        links: link ? [link.signal, timeout] : [timeout],
        stopReason: () => (timeout.aborted ? `timed out after ${settings.timeout_seconds} s (subagents.timeout_seconds)` : undefined),
        limitReason: () => this.limitReason(child),
      });
    } finally {
      release();
    }
    switch (outcome.status) {
      case 'completed':
        return result('completed', outcome.text);
      case 'max_turns':
        return result('limited', withNote(outcome.text, `Stopped: ${this.limitReason(child)}; the work may be unfinished.`));
      case 'cancelled':
        if (timeout.aborted) {
          return result('failed', withNote(outcome.text, `Stopped: timed out after ${settings.timeout_seconds} s; the work may be unfinished.`));
        }
        return result('cancelled', withNote(outcome.text, 'Cancelled by the user.'));
      case 'failed':
        return result('failed', withNote(outcome.text, `Failed: ${outcome.error ?? 'unknown error'}`));
    }
  }

  /** `reached its limit of 20 model requests (raise subagents.max_turns)`: the limit, and what raises it. */
  limitReason(child: LiveSession): string {
    return turnLimitReason(child.maxTurns ?? 0, this.maxTurnsKeys.get(child) ?? CONFIG_KEY);
  }

  private result(child: LiveSession, state: TaskState, body: string, log: ToolLog, merge: MergeOutcome | undefined, runner?: { host: string; container: string }): ToolResult {
    return {
      output: formatTaskResult(child.id, state, body, log, merge),
      isError: state === 'failed',
      // The UI draws the log from here rather than parsing the text above.
      metadata: {
        session_id: child.id,
        state,
        agent: child.agentName,
        tool_log: log.entries,
        tool_log_earlier: log.earlier,
        report: body,
        ...(merge ? { merge } : {}),
        ...this.forkMark(child),
        ...(runner ? { runner } : {}),
      } satisfies TaskOutcome,
    };
  }

  private limiterFor(signal: AbortSignal): Limiter {
    let limiter = this.limiters.get(signal);
    if (!limiter) {
      limiter = new Limiter(this.host.settings.max_concurrency);
      this.limiters.set(signal, limiter);
    }
    return limiter;
  }

  /**
   * Reports the child's state on the parent's `task` call (status, tool calls, latest tool)
   * and records its tool log. Only the child's own calls: a grandchild's events carry its id.
   */
  private trackProgress(child: LiveSession, ctx: ToolContext): { stop: () => void; log: () => ToolLog } {
    const recorder = watchToolLog(this.host.onEvent, child.id);
    let toolCalls = 0;
    let latestTool: string | undefined;
    let status: SessionStatus = 'queued';
    const started = Date.now();
    const report = () =>
      ctx.progress({
        session_id: child.id,
        agent: child.agentName,
        status,
        tool_calls: toolCalls,
        ...(latestTool ? { latest_tool: latestTool } : {}),
        elapsed_ms: Date.now() - started,
        ...(child.container ? { runner: child.container.where } : {}),
      } satisfies TaskProgress);
    report();
    const stop = this.host.onEvent((event: CoreEvent) => {
      if (event.session_id !== child.id) return;
      if (event.type === 'tool.started') {
        toolCalls++;
        latestTool = event.tool;
        report();
      } else if (event.type === 'session.status') {
        status = event.status;
        report();
      }
    });
    return {
      stop: () => {
        stop();
        recorder.stop();
      },
      log: recorder.log,
    };
  }
}

/**
 * Records the tool log of one session's calls from the event stream until `stop`: what a
 * task result lists. Only that session's own calls: a grandchild's events carry its id.
 */
export function watchToolLog(onEvent: (listener: EventListener) => () => void, sessionId: string): { stop: () => void; log: () => ToolLog } {
  const recorder = new ToolLogRecorder();
  const stop = onEvent((event: CoreEvent) => {
    if (event.session_id !== sessionId) return;
    if (event.type === 'tool.started') recorder.started(event.call_id, event.tool, event.input);
    // A call cut short by a cancel or timeout did not fail: it never finished.
    else if (event.type === 'tool.completed') recorder.completed(event.call_id, event.output === CANCELLED_RESULT ? 'unfinished' : event.is_error ? 'error' : 'ok');
  });
  return { stop, log: () => recorder.snapshot() };
}

const TASK_STATES: readonly TaskState[] = ['completed', 'limited', 'failed', 'cancelled', 'running'];

/** The state a finished task's result reports (its metadata's), `failed` for an error result without one. */
function resultState(result: ToolResult): TaskState {
  const state = result.metadata?.state;
  return TASK_STATES.find((s) => s === state) ?? (result.isError ? 'failed' : 'completed');
}

/** What a fork cannot be given: it is a copy of its caller, so the cached conversation is read as it was. */
function checkForkArgs(args: TaskArgs): void {
  const refused = [
    args.model !== undefined ? 'model' : undefined,
    args.tools !== undefined ? 'tools' : undefined,
    args.system_prompt !== undefined ? 'system_prompt' : undefined,
  ].filter((x): x is string => x !== undefined);
  if (refused.length === 0) return;
  throw new ToolError(
    `A fork is a copy of you with your model, tools and instructions, so it cannot take ${refused.join(', ')}. The fork was not started; call again without ${refused.length === 1 ? 'it' : 'them'}, or start an ordinary sub-agent instead.`,
  );
}
