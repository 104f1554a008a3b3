// The hooks as one session meets them. Contract: each method builds the stdin JSON Claude Code
// would send for that moment (`session_id`, `cwd`, `hook_event_name`, `permission_mode`, plus
// `agent` and `parent_session_id` in a sub-agent, and the event's own fields), fires the event
// in the session's project folder with the session's signal, reports blocks, stops and
// warnings as `hook.notice` events, and returns only what the caller acts on. The caller
// decides what a block means for its step (an error tool result, a refused prompt, one more
// round for the agent). Nothing here throws: a failing hook is a warning.
import type { EventPayloads } from '../events.js';
import type { HookEventName } from './config.js';
import { claudeToolInput, claudeToolName, matcherNames } from './tool-names.js';
import type { HookRunner, HookVerdict } from './runner.js';

export interface HookSessionIdentity {
  readonly id: string;
  readonly agentName: string;
  readonly cwd: string;
  /** The session's parent, for a sub-agent. */
  readonly parentId: string | undefined;
  /** Where hooks run: the session's project (a worktree child's worktree). */
  readonly projectRoot: string;
  /** The signal of the turn in flight. */
  signal(): AbortSignal;
  /** The session's permission mode now (DESIGN §26), sent as `permission_mode`; `default` when not given. */
  permissionMode?(): string;
  emit(type: 'hook.notice', payload: EventPayloads['hook.notice']): void;
}

export interface ToolCallInfo {
  id: string;
  name: string;
  input: unknown;
}

export interface PreToolVerdict {
  /** The call must not run: why (for the model). */
  block?: string;
  permission?: 'allow' | 'ask';
  permissionReason?: string;
  /** Added to the tool result for the model. */
  context?: string;
  /** The agent stops after this step. */
  stop?: string;
}

export interface PostToolVerdict {
  /** Feedback for the model, added to the tool result (exit 2's stderr, `decision: "block"`'s reason, additionalContext). */
  feedback?: string;
  stop?: string;
}

export interface PromptVerdict {
  /** The prompt is refused: why (for the user; the prompt is not sent). */
  refuse?: string;
  /** Added to the prompt for the model. */
  context?: string;
}

/** What TaskCreated and TaskCompleted hooks read about the task (Claude Code's `task_*` fields). */
export interface TeamTaskHookInput {
  id: string;
  title: string;
  description: string | null;
  /** The teammate acting; absent for the lead. */
  teammateName?: string | undefined;
  /** The team: its root session's id. */
  teamName: string;
}

/** Stop hooks asked the agent to go on: the reason becomes its next user message. */
export interface StopVerdict {
  continueWith?: string;
}

export class SessionHooks {
  constructor(
    private readonly runner: HookRunner,
    private readonly session: HookSessionIdentity,
  ) {}

  has(event: HookEventName): boolean {
    return this.runner.has(event);
  }

  async preToolUse(call: ToolCallInfo): Promise<PreToolVerdict> {
    if (!this.has('PreToolUse')) return {};
    const verdict = await this.fire('PreToolUse', { ...this.toolFields(call) }, matcherNames(call.name), call.id);
    const out: PreToolVerdict = {};
    if (verdict.context.length) out.context = verdict.context.join('\n');
    if (verdict.stop) out.stop = verdict.stop;
    if (verdict.block !== undefined || verdict.permission === 'deny') {
      const why = [verdict.block, verdict.permission === 'deny' ? verdict.permissionReason : undefined].filter(Boolean).join('\n');
      out.block = why || 'A PreToolUse hook denied this call.';
      this.notice('PreToolUse', 'blocked', `${claudeToolName(call.name)} call blocked by a PreToolUse hook: ${out.block}`, call.id);
      return out;
    }
    if (verdict.permission === 'allow' || verdict.permission === 'ask') out.permission = verdict.permission;
    if (verdict.permissionReason) out.permissionReason = verdict.permissionReason;
    return out;
  }

  async postToolUse(call: ToolCallInfo, output: string, metadata: Record<string, unknown> | undefined): Promise<PostToolVerdict> {
    if (!this.has('PostToolUse')) return {};
    const fields = this.toolFields(call);
    const filePath = typeof fields.tool_input.file_path === 'string' ? { filePath: fields.tool_input.file_path } : {};
    const toolResponse = { success: true, output, ...filePath, ...(metadata ? { metadata } : {}) };
    const verdict = await this.fire('PostToolUse', { ...fields, tool_response: toolResponse }, matcherNames(call.name), call.id);
    const feedback = [verdict.block, ...verdict.context].filter((t): t is string => Boolean(t));
    if (verdict.block) this.notice('PostToolUse', 'blocked', `PostToolUse hook feedback on ${claudeToolName(call.name)}: ${verdict.block}`, call.id);
    return { ...(feedback.length ? { feedback: feedback.join('\n') } : {}), ...(verdict.stop ? { stop: verdict.stop } : {}) };
  }

  /** After a tool call that failed (an error result): what its hooks add for the model, and whether one stops the agent. */
  async postToolUseFailure(call: ToolCallInfo, error: string): Promise<PostToolVerdict> {
    if (!this.has('PostToolUseFailure')) return {};
    const verdict = await this.fire('PostToolUseFailure', { ...this.toolFields(call), error, is_interrupt: false }, matcherNames(call.name), call.id);
    const feedback = [verdict.block, ...verdict.context].filter((t): t is string => Boolean(t));
    return { ...(feedback.length ? { feedback: feedback.join('\n') } : {}), ...(verdict.stop ? { stop: verdict.stop } : {}) };
  }

  async userPromptSubmit(prompt: string): Promise<PromptVerdict> {
    if (!this.has('UserPromptSubmit')) return {};
    const verdict = await this.fire('UserPromptSubmit', { prompt });
    const refuse = verdict.block ?? verdict.stop;
    if (refuse !== undefined) {
      this.notice('UserPromptSubmit', 'blocked', `Prompt refused by a UserPromptSubmit hook: ${refuse}`);
      return { refuse };
    }
    return verdict.context.length ? { context: verdict.context.join('\n') } : {};
  }

  /** `startup` for a new session, `resume` for one with history. Returns context for the model, if any. */
  async sessionStart(source: 'startup' | 'resume'): Promise<string | undefined> {
    if (!this.has('SessionStart')) return undefined;
    const verdict = await this.fire('SessionStart', { source }, [source]);
    return verdict.context.length ? verdict.context.join('\n') : undefined;
  }

  /** Fired when the agent ends its turn (Stop for a root, SubagentStop for a sub-agent). */
  async stop(stopHookActive: boolean): Promise<StopVerdict> {
    const event: HookEventName = this.session.parentId ? 'SubagentStop' : 'Stop';
    if (!this.has(event)) return {};
    const verdict = await this.fire(event, { stop_hook_active: stopHookActive });
    if (verdict.stop || verdict.block === undefined) return {};
    this.notice(event, 'blocked', `A ${event} hook asked the agent to go on: ${verdict.block}`);
    return { continueWith: verdict.block };
  }

  async preCompact(trigger: 'manual' | 'auto', focus: string | undefined): Promise<void> {
    if (!this.has('PreCompact')) return;
    await this.fire('PreCompact', { trigger, custom_instructions: focus ?? '' }, [trigger]);
  }

  /** A person is waited for; the hook is not waited for. */
  notify(message: string, type: 'permission_prompt' | 'elicitation_dialog'): void {
    if (!this.has('Notification')) return;
    void this.fire('Notification', { message, notification_type: type }, [type]);
  }

  /**
   * TaskCreated or TaskCompleted (DESIGN §24), with Claude Code's fields. Exit 2 (or
   * `decision: "block"`) refuses the creation or the completion: the reason is returned for
   * the model. These events take no matcher: every configured hook runs.
   */
  async teamTask(event: 'TaskCreated' | 'TaskCompleted', task: TeamTaskHookInput): Promise<{ block?: string }> {
    if (!this.has(event)) return {};
    const fields = {
      task_id: task.id,
      task_subject: task.title,
      task_description: task.description ?? '',
      ...(task.teammateName ? { teammate_name: task.teammateName } : {}),
      team_name: task.teamName,
    };
    const verdict = await this.fire(event, fields);
    if (verdict.block === undefined) return {};
    const action = event === 'TaskCreated' ? 'creation' : 'completion';
    this.notice(event, 'blocked', `A ${event} hook refused the ${action} of task ${task.id} (${task.title}): ${verdict.block}`);
    return { block: verdict.block };
  }

  /**
   * TeammateIdle (DESIGN §24), with Claude Code's fields: this session is a teammate about to go
   * idle. Exit 2 (or `decision: "block"`) keeps it working: the reason is returned as its next
   * message. No matcher: every configured hook runs.
   */
  async teammateIdle(teammateName: string, teamName: string): Promise<{ block?: string }> {
    if (!this.has('TeammateIdle')) return {};
    const verdict = await this.fire('TeammateIdle', { teammate_name: teammateName, team_name: teamName });
    if (verdict.block === undefined) return {};
    this.notice('TeammateIdle', 'blocked', `A TeammateIdle hook kept teammate ${teammateName} working: ${verdict.block}`);
    return { block: verdict.block };
  }

  /** Tells the user a hook ended the turn (`continue: false`). */
  stopped(event: HookEventName, reason: string): void {
    this.notice(event, 'stopped', reason);
  }

  private toolFields(call: ToolCallInfo): { tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string } {
    return { tool_name: claudeToolName(call.name), tool_input: claudeToolInput(call.input, this.session.cwd), tool_use_id: call.id };
  }

  private async fire(event: HookEventName, fields: Record<string, unknown>, subject?: readonly string[], callId?: string): Promise<HookVerdict> {
    const { id, cwd, parentId, agentName, projectRoot } = this.session;
    const input = {
      session_id: id,
      cwd,
      hook_event_name: event,
      permission_mode: this.session.permissionMode?.() ?? 'default',
      ...(parentId ? { agent: agentName, parent_session_id: parentId } : {}),
      ...fields,
    };
    const verdict = await this.runner.fire(event, { input, cwd: projectRoot, signal: this.session.signal(), ...(subject ? { subject } : {}) });
    for (const warning of verdict.warnings) this.notice(event, 'warning', warning, callId);
    return verdict;
  }

  private notice(event: HookEventName, kind: 'blocked' | 'stopped' | 'warning', message: string, callId?: string): void {
    this.session.emit('hook.notice', { hook_event: event, kind, message, ...(callId ? { call_id: callId } : {}) });
  }
}
