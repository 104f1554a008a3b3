// Teammates (DESIGN §24): long-lived children of the lead that go idle instead of ending.
//
// Contract
// - `task` with `name` starts one (the lead must be the root session; a teammate cannot start
//   teammates; at most `team.max_teammates` that have not ended): it returns at once,
//   `state="running"`. Its agent, model, tools, isolation and sandbox are fixed at spawn, as for
//   any child, and kept for all its runs (stored with the teammate). A `task` naming a teammate
//   that is working or idle sends `prompt` to it as a message (never a second session); naming
//   one that ended or failed starts it again on the same session, with its history.
// - A *working period* is one run of the child (a turn and the turns its inbox starts). When it
//   ends: messages stored meanwhile start another run; a shutdown request ends the teammate;
//   TeammateIdle hooks may keep it working (exit 2: their stderr is its next message);
//   otherwise it goes `idle` and the lead is told so through its inbox, with the teammate's last
//   line. A run that fails (or times out) makes it `failed`; a cancelled one leaves it `idle`.
//   Its held tasks go back to pending either way (subagent-host's runChild).
// - Nothing runs while a teammate is idle: no timer, no promise the process waits on. A message
//   or a task assigned to it starts its next working period from what the store holds, so an
//   idle teammate from before a restart (`-c`) wakes the same way.
// - Messages are stored first (member-store.ts) and taken by the run that reads them: a
//   teammate working in this process gets them at its next turn boundary (the steering queue of
//   DESIGN §23), an idle one wakes up. Messages to the lead reach its inbox like a background
//   result. Every message is announced with `team.message`.
// - An isolated teammate keeps one worktree for as long as this process holds it, merged back
//   (DESIGN §17) when it ends; the lead reads the merge outcome. A worktree left by an earlier
//   process is salvaged at start onto branch `opencode/<session id>`, and the teammate is told
//   so when it next wakes in a fresh worktree.
import { queueSteering } from '../agent/inbox.js';
import type { LiveSession } from '../agent/live-session.js';
import type { TurnOutcome } from '../agent/loop.js';
import { errorMessage } from '../errors.js';
import type { CoreEvent, TaskOutcome } from '../events.js';
import type { Message } from '../messages.js';
import type { SessionRow } from '../store/index.js';
import type { SubagentHost } from '../subagents/index.js';
import { formatTaskResult } from '../subagents/result.js';
import type { TaskArgs } from '../subagents/task-tool.js';
import { ToolError, type ToolContext, type ToolResult } from '../tools/types.js';
import type { ChildWorktree, MergeOutcome } from '../workspace/worktree.js';
import { LEAD, type MemberState } from './members.js';
import type { TeamMember, TeamMessage, TeammateSpawn } from './member-store.js';
import { createSendMessageTool, SEND_MESSAGE_TOOL } from './send-message.js';

/** What starting a teammate needs from the supervisor: the checks and rows of any child. */
export interface TeammateSpawner {
  /** Validates the call (agent, tools, permission, isolation) and returns what the spawn fixes; throws a ToolError. */
  prepare(parent: LiveSession, args: TaskArgs, ctx: ToolContext): Promise<{ agent: string; spawn: TeammateSpawn }>;
  createRow(parent: LiveSession, agent: string, args: TaskArgs, ctx: ToolContext): SessionRow;
  createWorktree(parent: LiveSession, childId: string): Promise<ChildWorktree>;
  turnLimitReason(limit: number, key: string): string;
}

/** What the team needs of the engine: the supervisor's host (its `team` part included). */
export type TeamHost = SubagentHost;

/** A name a model can write and a user can read; refused otherwise, with the rule. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;

/** What a working period of this process knows about its teammate. */
interface Running {
  /** The child of the run in flight, while it runs. */
  child: LiveSession | undefined;
}

export class Teammates {
  /** Teammates with a working period under way in this process. */
  private readonly running = new Map<string, Running>();
  /** Isolated teammates' worktrees, kept across their idle periods while this process lives. */
  private readonly worktrees = new Map<string, ChildWorktree>();
  /** Task assignments already told to their teammate: `root:task:owner`. */
  private readonly told = new Set<string>();

  constructor(
    private readonly host: TeamHost,
    private readonly spawner: TeammateSpawner,
  ) {
    host.onEvent((event) => this.onTaskEvent(event));
  }

  /** Whether the session is a teammate (of any team in the store). */
  isTeammate(sessionId: string): boolean {
    return this.host.store.teamMembers.get(sessionId) !== undefined;
  }

  /** Whether `send_message` belongs in a session's tools: a teammate, or a root that has teammates. */
  inTeam(sessionId: string, isRoot: boolean): boolean {
    const members = this.host.store.teamMembers;
    return isRoot ? members.list(sessionId).length > 0 : members.get(sessionId) !== undefined;
  }

  /** The root's teammates, their stored states made exact for this moment (see `reconcile`). */
  list(rootId: string): TeamMember[] {
    return this.host.store.teamMembers.list(rootId).map((m) => this.reconcile(m));
  }

  /** `task` with `name`. */
  async task(parent: LiveSession, args: TaskArgs & { name: string }, ctx: ToolContext): Promise<ToolResult> {
    const name = args.name.trim();
    if (!NAME.test(name) || name === LEAD || name === '*') {
      throw new ToolError(
        `"${args.name}" cannot name a teammate: use 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or digit, and not "${LEAD}" or "*". Nothing was started.`,
      );
    }
    if (parent.parent) {
      const self = this.host.store.teamMembers.get(parent.id);
      throw new ToolError(
        self
          ? `You are teammate "${self.name}": teammates cannot start teammates (only the lead can). Use send_message to talk to the team, or task without name for an ordinary sub-agent.`
          : 'Only the lead (the main session) can start teammates; start an ordinary sub-agent (task without name) instead.',
      );
    }
    if (args.session_id) throw new ToolError('A teammate is named by `name` alone: leave session_id out (task with the name of a live teammate sends it the prompt).');
    if (args.fork || args.subagent_type === 'fork') throw new ToolError('A teammate cannot be a fork: leave fork out, or leave name out to start a fork.');
    const rootId = parent.path[0]!;
    const existing = this.host.store.teamMembers.byName(rootId, name);
    if (existing) return this.toExisting(parent, this.reconcile(existing), args.prompt);
    this.checkRoom(rootId, name);
    const { agent, spawn } = await this.spawner.prepare(parent, args, ctx);
    // Checked again: another call of the same message may have taken the name while this one was asked about.
    if (this.host.store.teamMembers.byName(rootId, name)) return this.toExisting(parent, this.reconcile(this.host.store.teamMembers.byName(rootId, name)!), args.prompt);
    // And the room: the calls of one message are asked about together, then created one by one.
    this.checkRoom(rootId, name);
    const row = this.spawner.createRow(parent, agent, args, ctx);
    const member = this.host.store.teamMembers.add({ session_id: row.id, root_id: rootId, lead_id: parent.id, name, state: 'working', spawn });
    // The lead talks to its team from now on (its tools are read at the start of each request).
    if (!parent.tools.some((t) => t.name === SEND_MESSAGE_TOOL)) parent.tools = [...parent.tools, createSendMessageTool((a) => this.send(parent, a))];
    this.start(member, [{ type: 'text', text: args.prompt }]);
    return this.running_(row.id, agent, `Teammate "${name}" started. It works on its prompt, then goes idle and you will be told (with its last line); wake it with send_message to "${name}" or by assigning it a task (task_list owner "${name}").`);
  }

  /**
   * A message to one teammate (`from` names the sender as the team knows it). Stored first, then:
   * a teammate working here reads it at its next turn boundary, an idle one wakes up, and one
   * asked to shut down while idle ends now.
   */
  message(sender: { session: LiveSession | undefined; name: string }, to: TeamMember, text: string, shutdown = false): void {
    const { store } = this.host;
    const member = this.reconcile(to);
    const seq = text.trim() ? store.teamMembers.post(member.root_id, member.session_id, sender.name, text) : undefined;
    if (shutdown) store.teamMembers.setShutdown(member.session_id, true);
    const payload = { from: sender.name, to: member.name, to_session_id: member.session_id, text, shutdown };
    if (sender.session) sender.session.emit('team.message', payload);
    else this.host.team.open(member.lead_id).emit('team.message', payload);
    const running = this.running.get(member.session_id);
    if (running) {
      const child = running.child;
      if (seq !== undefined && child && this.host.isRunning(child.id)) {
        queueSteering(child, {
          text: formatMessage(sender.name, text),
          sender: sender.name === 'user' ? 'user' : 'parent',
          // Read at a turn boundary: taken from the store then. Dropped: the next run takes it.
          settle: (fate) => fate.delivered && store.teamMembers.delivered(seq),
        });
      }
      return;
    }
    if (member.state === 'idle') {
      if (shutdown && !text.trim()) {
        // Counted against the root like a working period: `run` waits for the merge and the lead's notice.
        this.running.set(member.session_id, { child: undefined });
        const ending = this.end(member, undefined)
          .catch((err: unknown) => this.fail(member, errorMessage(err)))
          .finally(() => this.running.delete(member.session_id));
        this.host.trackBackground(member.root_id, ending);
        return;
      }
      this.start(member, []);
    }
  }

  /** A message from a session of the tree (send_message) to the lead: into its inbox, like a background result. */
  messageLead(from: LiveSession, fromName: string, rootId: string, text: string): void {
    const { store } = this.host;
    const leadId = rootId;
    const seq = store.teamMembers.post(rootId, leadId, fromName, text);
    from.emit('team.message', { from: fromName, to: LEAD, to_session_id: leadId, text, shutdown: false });
    const lead = this.host.team.open(leadId);
    this.host.deliver(lead, formatMessage(fromName, text), {
      child_id: from.id,
      child_agent: from.agentName,
      description: `message from ${fromName}`,
      state: 'running',
      follow_up: true,
    });
    store.teamMembers.delivered(seq);
  }

  /** The user typed in an idle (or ended, or failed) teammate's view: a message like any other, which wakes it. */
  messageFromUser(member: TeamMember, text: string): void {
    const current = this.reconcile(member);
    if (current.state === 'ended' || current.state === 'failed') {
      this.host.store.teamMembers.post(current.root_id, current.session_id, 'user', text);
      this.host.team.open(current.lead_id).emit('team.message', { from: 'user', to: current.name, to_session_id: current.session_id, text, shutdown: false });
      this.revive(current, []);
      return;
    }
    this.message({ session: undefined, name: 'user' }, current, text);
  }

  /** Refuses a new teammate when the team holds `team.max_teammates` that have not ended. */
  private checkRoom(rootId: string, name: string): void {
    const live = this.list(rootId).filter((m) => m.state !== 'ended');
    const max = this.host.team.maxTeammates;
    if (live.length < max) return;
    throw new ToolError(
      `The team is full: ${live.length} teammates (${live.map((m) => `${m.name}: ${m.state}`).join(', ')}) and team.max_teammates is ${max}. "${name}" was not started; give the work to one of them (send_message, or task with its name), or end one with send_message shutdown.`,
    );
  }

  /** `send_message` from a session of the tree: to a teammate by name, to `lead`, or to everyone (`*`). */
  send(from: LiveSession, args: { to: string; text: string; shutdown?: boolean | undefined }): ToolResult {
    const rootId = from.path[0]!;
    const { store } = this.host;
    const self = store.teamMembers.get(from.id);
    const fromName = from.id === rootId ? LEAD : (self?.name ?? from.id);
    const to = args.to.trim();
    const text = args.text;
    const shutdown = args.shutdown === true;
    if (!text.trim() && !shutdown) throw new ToolError('send_message needs "text": the message to send (it may be empty only with shutdown: true).');
    if (shutdown && fromName !== LEAD) throw new ToolError('Only the lead can ask a teammate to shut down; send it a message instead.');
    const team = this.list(rootId);
    const names = team.map((m) => `${m.name} (${m.state})`).join(', ') || 'none yet';
    if (to === LEAD) {
      if (fromName === LEAD) throw new ToolError('You are the lead: send_message goes to a teammate\'s name or "*".');
      if (shutdown) throw new ToolError('The lead cannot be shut down; leave shutdown out.');
      this.messageLead(from, fromName, rootId, text);
      return { output: 'Message sent to the lead; it reads it at its next step.' };
    }
    if (to === '*') {
      const recipients = team.filter((m) => m.session_id !== from.id && (m.state === 'working' || m.state === 'idle'));
      if (recipients.length === 0 && fromName === LEAD) throw new ToolError(`No teammate is working or idle to receive it (teammates: ${names}).`);
      for (const member of recipients) this.message({ session: from, name: fromName }, member, text, shutdown);
      if (fromName !== LEAD && text.trim()) this.messageLead(from, fromName, rootId, text);
      const who = [...recipients.map((m) => m.name), ...(fromName !== LEAD ? [LEAD] : [])];
      return { output: `Message sent to ${who.join(', ')}${shutdown ? ', each asked to end after its current turn' : ''}.` };
    }
    const member = team.find((m) => m.name === to);
    if (!member) throw new ToolError(`There is no teammate "${args.to}". Teammates: ${names}. Send to "${LEAD}", "*" or one of these names.`);
    if (member.session_id === from.id) throw new ToolError('That is you: send the message to another teammate or to the lead.');
    if (member.state === 'ended' || member.state === 'failed') {
      throw new ToolError(`Teammate "${member.name}" has ${member.state === 'ended' ? 'ended' : 'failed'}: it reads no messages. ${fromName === LEAD ? `Start it again with task and name "${member.name}".` : 'Tell the lead if its work is needed.'}`);
    }
    const was = member.state;
    this.message({ session: from, name: fromName }, member, text, shutdown);
    const fate = shutdown
      ? was === 'idle' && !text.trim()
        ? 'it was idle, so it has ended'
        : 'it ends after its current turn'
      : was === 'idle'
        ? 'it was idle and woke up to read it'
        : 'it reads it at its next step';
    return { output: `Message sent to ${member.name}: ${fate}.` };
  }

  /** Naming an existing teammate in `task`: a message to a live one, a new start for one that ended or failed. */
  private toExisting(parent: LiveSession, member: TeamMember, prompt: string): ToolResult {
    const agent = this.host.store.getSession(member.session_id)?.agent ?? 'general';
    if (member.state === 'working' || member.state === 'idle') {
      const was = member.state;
      this.message({ session: parent, name: LEAD }, member, prompt);
      return this.running_(
        member.session_id,
        agent,
        `Teammate "${member.name}" already exists (${was}): the prompt was sent to it as a message${was === 'idle' ? ', and it woke up to read it' : '; it reads it at its next step'}. No second teammate was started.`,
      );
    }
    this.revive(member, [{ type: 'text', text: prompt }]);
    return this.running_(member.session_id, agent, `Teammate "${member.name}" had ${member.state === 'ended' ? 'ended' : 'failed'}; it was started again with this prompt and its earlier history.`);
  }

  private revive(member: TeamMember, first: Message['content']): void {
    this.host.store.teamMembers.setShutdown(member.session_id, false);
    this.start({ ...member, shutdown: false }, first);
  }

  /** Starts a working period (no-op when one is under way here: it takes what was stored). */
  private start(member: TeamMember, first: Message['content']): void {
    if (this.running.has(member.session_id)) return;
    const running: Running = { child: undefined };
    this.running.set(member.session_id, running);
    this.setState(member, 'working');
    const work = this.work(member, first, running)
      .catch((err: unknown) => this.fail(member, errorMessage(err)))
      .finally(() => this.running.delete(member.session_id))
      .then(() => {
        // A message stored after the period decided to go idle, and before it let go: read it now.
        const after = this.host.store.teamMembers.get(member.session_id);
        if (after?.state === 'idle' && this.host.store.teamMembers.waiting(member.session_id).length > 0) this.start(after, []);
      });
    this.host.trackBackground(member.root_id, work);
  }

  private async work(member: TeamMember, first: Message['content'], running: Running): Promise<void> {
    const { store, settings } = this.host;
    const lead = this.host.team.open(member.lead_id);
    const spawn = member.spawn;
    let note: string | undefined;
    let worktree = this.worktrees.get(member.session_id);
    if (spawn.isolation === 'worktree' && !worktree) {
      const branch = `opencode/${member.session_id}`;
      worktree = await this.spawner.createWorktree(lead, member.session_id);
      this.worktrees.set(member.session_id, worktree);
      if (store.getSession(member.session_id)?.status !== 'queued') {
        note = `You work in a fresh worktree made from the lead's tree as it is now (${worktree.cwd}). What you changed before the program restarted, if anything, is committed on branch ${branch}.`;
      }
    }
    let content: Message['content'] = [...first, ...this.takeMessages(member.session_id), ...(note ? [{ type: 'text' as const, text: note }] : [])];
    for (;;) {
      if (content.length === 0) content = [{ type: 'text', text: 'Continue.' }];
      const row = store.getSession(member.session_id)!;
      const child = this.host.openChild(worktree ? { ...row, cwd: worktree.cwd } : row, lead, spawn.narrow);
      child.maxTurns = spawn.max_turns;
      running.child = child;
      const timeout = AbortSignal.timeout(settings.timeout_seconds * 1000);
      let outcome: TurnOutcome;
      try {
        outcome = await this.host.runChild(child, { role: 'user', content }, {
          links: [timeout],
          stopReason: () => (timeout.aborted ? `timed out after ${settings.timeout_seconds} s (subagents.timeout_seconds)` : undefined),
          limitReason: () => this.spawner.turnLimitReason(spawn.max_turns, spawn.max_turns_key),
        });
      } finally {
        running.child = undefined;
      }
      if (outcome.status === 'failed' || (outcome.status === 'cancelled' && timeout.aborted)) {
        const why = timeout.aborted ? `timed out after ${settings.timeout_seconds} s` : (outcome.error ?? 'unknown error');
        this.fail(member, why, outcome.text);
        return;
      }
      const waiting = this.takeMessages(member.session_id);
      if (waiting.length > 0 && outcome.status !== 'cancelled') {
        content = waiting;
        continue;
      }
      if (store.teamMembers.get(member.session_id)?.shutdown) {
        await this.end(member, child, outcome.text);
        return;
      }
      if (outcome.status !== 'cancelled') {
        const hook = await child.hooks?.teammateIdle(member.name, member.root_id);
        if (hook?.block !== undefined) {
          content = [{ type: 'text', text: `<hook-feedback event="TeammateIdle">\n${hook.block}\n</hook-feedback>` }];
          continue;
        }
      }
      this.goIdle(member, child, outcome);
      return;
    }
  }

  private goIdle(member: TeamMember, child: LiveSession, outcome: TurnOutcome): void {
    const line = lastLine(outcome.text);
    this.setState(member, 'idle', line);
    const cancelled = outcome.status === 'cancelled' ? ' (its turn was cancelled)' : '';
    const limited = outcome.status === 'max_turns' ? ` (it stopped at its cap: ${this.spawner.turnLimitReason(member.spawn.max_turns, member.spawn.max_turns_key)})` : '';
    this.tellLead(member, child, `Teammate "${member.name}" is idle${cancelled}${limited}. Its last line: ${line || '(no text)'}\nWake it with send_message to "${member.name}" or by assigning it a task.`, 'completed');
  }

  private fail(member: TeamMember, why: string, text = ''): void {
    this.setState(member, 'failed', lastLine(text) || undefined);
    this.tellLead(member, undefined, `Teammate "${member.name}" failed: ${why}. Its claimed tasks went back to pending. Start it again with task and name "${member.name}" if it should go on.`, 'failed');
  }

  /** Ends a teammate: its worktree is merged back, its state `ended`, the lead told (with the merge). */
  private async end(member: TeamMember, child: LiveSession | undefined, text = ''): Promise<void> {
    const worktree = this.worktrees.get(member.session_id);
    this.worktrees.delete(member.session_id);
    let merge: MergeOutcome | undefined;
    if (worktree) {
      await this.host.beforeMerge(member.session_id);
      const started = Date.now();
      merge = await this.host.workspaces.finish(worktree, 'merge');
      if (merge.state === 'merged') this.host.merged(member.session_id, worktree.parent.toplevel, merge.files, started);
    }
    this.host.store.teamMembers.setShutdown(member.session_id, false);
    this.setState(member, 'ended', lastLine(text) || undefined);
    const body = `Teammate "${member.name}" has ended, as asked.${text ? ` Its last line: ${lastLine(text)}` : ''}`;
    const withMerge = merge ? `${body}\n${formatTaskResult(member.session_id, 'completed', '', undefined, merge)}` : body;
    this.tellLead(member, child, withMerge, 'completed');
  }

  private tellLead(member: TeamMember, child: LiveSession | undefined, text: string, state: 'completed' | 'failed'): void {
    let lead: LiveSession;
    try {
      lead = this.host.team.open(member.lead_id);
    } catch {
      return;
    }
    this.host.deliver(lead, text, {
      child_id: member.session_id,
      child_agent: child?.agentName ?? this.host.store.getSession(member.session_id)?.agent ?? 'general',
      description: `teammate ${member.name}`,
      state,
      follow_up: true,
    });
  }

  /** The state stored, the session's status and a `session.status` event, together. */
  private setState(member: TeamMember, state: MemberState, lastLineText?: string): void {
    const { store } = this.host;
    store.teamMembers.setState(member.session_id, state, lastLineText);
    // While working, the turn scheduler keeps the session's status; the rest are the team's.
    if (state === 'working') return;
    const status = state === 'idle' ? 'idle' : state === 'ended' ? 'completed' : 'failed';
    store.updateSession(member.session_id, { status });
    // The child may not be in memory any more: announced from its stored row.
    this.host.team.emitStatus(member.session_id, status);
  }

  /**
   * A teammate stored as `working` that no process is running (its process died between its
   * turn's end and the state's update) is `failed`, with its tasks returned.
   */
  private reconcile(member: TeamMember): TeamMember {
    if (member.state !== 'working' || this.running.has(member.session_id)) return member;
    const row = this.host.store.getSession(member.session_id);
    const elsewhere = this.host.store.leases.otherHolder(member.session_id) !== undefined;
    if (elsewhere || row?.status === 'running' || row?.status === 'queued') return member;
    this.host.store.teamMembers.setState(member.session_id, 'failed');
    this.host.store.teamTasks.releaseHeldBy(member.session_id);
    return { ...member, state: 'failed' };
  }

  /** The messages stored for a teammate, marked delivered, as the text blocks of its next user message. */
  private takeMessages(sessionId: string): Message['content'] {
    return this.host.store.teamMembers.take(sessionId).map((m: TeamMessage) => ({ type: 'text' as const, text: formatMessage(m.sender, m.text) }));
  }

  /**
   * A task assigned to a teammate (created or updated with it as owner), or one of its tasks
   * unblocked by a completion: told to it as a message from `team`, once per assignment.
   */
  private onTaskEvent(event: CoreEvent): void {
    if (event.type !== 'team.task' || event.task.status !== 'pending') {
      if (event.type === 'team.task' && event.action === 'completed') this.unblocked(event.path[0]!, event.task.id);
      return;
    }
    const ownerId = event.task.owner_session_id;
    if (!ownerId || ownerId === event.session_id || event.task.owner === LEAD) return;
    const rootId = event.path[0]!;
    const key = `${rootId}:${event.task.id}:${ownerId}`;
    if (this.told.has(key)) return;
    const member = this.host.store.teamMembers.get(ownerId);
    if (!member || member.root_id !== rootId) return;
    this.told.add(key);
    const blocked = this.host.store.teamTasks.openBlockers(rootId, event.task);
    const when = blocked.length ? ` It is blocked until ${blocked.join(', ')} ${blocked.length === 1 ? 'is' : 'are'} completed; you will be told.` : ' Claim it with task_list claim and complete it when done.';
    this.message({ session: undefined, name: 'team' }, member, `Task ${event.task.id} is assigned to you: ${event.task.title}.${when}`);
  }

  /** Tasks assigned to teammates that the completion of `doneId` unblocked: each owner is told. */
  private unblocked(rootId: string, doneId: string): void {
    const tasks = this.host.store.teamTasks;
    for (const task of tasks.list(rootId)) {
      if (task.status !== 'pending' || !task.blocked_by.includes(doneId) || !task.owner_session_id) continue;
      if (tasks.openBlockers(rootId, task).length > 0) continue;
      const member = this.host.store.teamMembers.get(task.owner_session_id);
      if (!member || member.root_id !== rootId) continue;
      this.message({ session: undefined, name: 'team' }, member, `Task ${task.id} (${task.title}), assigned to you, is no longer blocked: claim it with task_list claim.`);
    }
  }

  private running_(sessionId: string, agent: string, body: string): ToolResult {
    return {
      output: formatTaskResult(sessionId, 'running', body),
      metadata: { session_id: sessionId, state: 'running', agent } satisfies TaskOutcome,
    };
  }
}

/** How a message reads in the recipient's conversation. */
export function formatMessage(from: string, text: string): string {
  // The user's own words read as theirs, as in any session's view.
  if (from === 'user') return text;
  return `<teammate-message from="${from.replace(/"/g, '')}">\n${text}\n</teammate-message>`;
}

/** The last non-empty line of a text, trimmed to one readable line. */
function lastLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

