// Runs the tool calls of one assistant message. Every call yields exactly one tool_result,
// whatever happens (unknown tool, bad arguments, denial, crash, cancel), so the history
// stays valid and the model can read what went wrong. PreToolUse hooks run before a call
// (they may block it, allow it past the default asks, or have it asked) and PostToolUse hooks
// after a successful one (their feedback is added to the result); see hooks/session.ts.
import * as z from 'zod';
import { untilAborted } from '../abort-fanout.js';
import { errorMessage, isAbortError } from '../errors.js';
import type { ImagePart, ToolResultPart, ToolUsePart } from '../messages.js';
import type { HookApproval } from '../permission/gate.js';
import type { PreparedImage } from '../images/prepare.js';
import { storeImages } from '../images/store.js';
import { PermissionDeniedError, ToolError, type PermissionRequest, type Tool, type ToolContext } from '../tools/types.js';
import type { LiveSession } from './live-session.js';

/** Keeps one runaway tool result from flooding the context window. */
const MAX_RESULT_CHARS = 100_000;

export const CANCELLED_RESULT = 'Cancelled by the user before the tool finished.';

export interface RunCallsOptions {
  /** The calls were made for the user (a command or an @mention), not chosen by the model. */
  byUser?: boolean;
}

export async function runToolCalls(session: LiveSession, calls: readonly ToolUsePart[], opts: RunCallsOptions = {}): Promise<ToolResultPart[]> {
  const results = new Map<string, ToolResultPart>();
  const positions = batchPositions(calls);
  for (const group of planGroups(session, calls)) {
    if (session.controller.signal.aborted) break;
    const outcomes = await Promise.all(group.map((call) => runOne(session, call, { ...opts, batchIndex: positions.get(call.id) ?? 0 })));
    for (const r of outcomes) results.set(r.tool_use_id, r);
  }
  return calls.map(
    (call) =>
      results.get(call.id) ?? { type: 'tool_result', tool_use_id: call.id, content: CANCELLED_RESULT, is_error: true },
  );
}

/**
 * Consecutive read-only calls run together; a call that changes something runs alone, in
 * the order the model wrote it. Calls to tools marked `runsTogether` (sub-agent tasks) go
 * last, all at once, after every other call.
 */
function planGroups(session: LiveSession, calls: readonly ToolUsePart[]): ToolUsePart[][] {
  const groups: ToolUsePart[][] = [];
  const together: ToolUsePart[] = [];
  let readBatch: ToolUsePart[] = [];
  for (const call of calls) {
    const tool = findTool(session, call.name);
    if (tool?.runsTogether) {
      together.push(call);
    } else if (tool?.readOnly) {
      readBatch.push(call);
    } else {
      if (readBatch.length) groups.push(readBatch);
      readBatch = [];
      groups.push([call]);
    }
  }
  if (readBatch.length) groups.push(readBatch);
  if (together.length) groups.push(together);
  return groups;
}

/** Each call's index among the calls to the same tool in this message (for per-message caps). */
function batchPositions(calls: readonly ToolUsePart[]): Map<string, number> {
  const seen = new Map<string, number>();
  const positions = new Map<string, number>();
  for (const call of calls) {
    const n = seen.get(call.name) ?? 0;
    positions.set(call.id, n);
    seen.set(call.name, n + 1);
  }
  return positions;
}

/**
 * Whether a tool can change the project's files itself. A sub-agent task (`runsTogether`)
 * cannot: the tools of the sessions it starts wait for themselves.
 */
/**
 * Whether running a call to `toolName` may change files: the tool itself, or a Pre/PostToolUse
 * hook around it (a hook is a command). Read as the model begins writing the call, so what must
 * exist before a change (the prompt's "before" snapshot) is taken while the call streams in.
 */
export function callMayChangeFiles(session: LiveSession, toolName: string): boolean {
  const tool = findTool(session, toolName);
  if (!tool) return false;
  if (changesFiles(tool)) return true;
  const hooks = session.hooks;
  return hooks !== undefined && (hooks.has('PreToolUse') || hooks.has('PostToolUse'));
}

function changesFiles(tool: Tool): boolean {
  return !tool.readOnly && tool.fileChanges !== 'none' && !tool.runsTogether;
}

function findTool(session: LiveSession, name: string): Tool | undefined {
  return session.tools.find((t) => t.name === name);
}

async function runOne(session: LiveSession, call: ToolUsePart, opts: ExecuteOptions): Promise<ToolResultPart> {
  session.emit('tool.started', { call_id: call.id, tool: call.name, input: call.input });
  const executed = await executeWithHooks(session, call, opts);
  const { content, metadata } = executed;
  let isError = executed.isError;
  const capped =
    content.length > MAX_RESULT_CHARS
      ? `${content.slice(0, MAX_RESULT_CHARS)}\n\n[Result truncated: ${content.length - MAX_RESULT_CHARS} more characters omitted.]`
      : content;
  let output = capped;
  let images: ImagePart[] = [];
  try {
    images = storeImages(session.blobs, executed.images ?? []);
  } catch (err) {
    // The picture was fine but the data dir refused it (full, read-only): the model is told.
    output = `${capped}\nThe image could not be stored in the data dir, so it was not attached: ${errorMessage(err)}`;
    isError = true;
  }
  const refs = images.map(({ name, width, height, media_type }) => ({ name, width, height, media_type }));
  session.emit('tool.completed', {
    call_id: call.id,
    tool: call.name,
    output,
    is_error: isError,
    ...(metadata ? { metadata } : {}),
    ...(refs.length ? { images: refs } : {}),
  });
  return { type: 'tool_result', tool_use_id: call.id, content: output, ...(isError ? { is_error: true } : {}), ...(images.length ? { images } : {}) };
}

/**
 * Waits for the snapshots a change to the project's files must follow; false when the turn was
 * cancelled first. A snapshot held up (a slow clean filter, a huge tree) must not hold up Esc:
 * it goes on, and the change does not happen.
 */
async function snapshotsReady(session: LiveSession): Promise<boolean> {
  const signal = session.controller.signal;
  if (session.changes) await untilAborted(session.changes.ready(), signal);
  return !signal.aborted;
}

/** A call as the model's turn runs it: PreToolUse hooks, the tool, PostToolUse hooks. */
async function executeWithHooks(session: LiveSession, call: ToolUsePart, opts: ExecuteOptions): Promise<ExecutedCall> {
  const hooks = session.hooks;
  if (!hooks) return executeTool(session, call, opts);
  // A hook is a command: it may change files too.
  if (session.changes && hooks.has('PreToolUse') && !(await snapshotsReady(session))) return { content: CANCELLED_RESULT, isError: true };
  const pre = await hooks.preToolUse(call);
  if (pre.stop) session.hookStop ??= { event: 'PreToolUse', reason: pre.stop };
  if (session.controller.signal.aborted) return { content: CANCELLED_RESULT, isError: true };
  if (pre.block !== undefined || pre.stop) {
    return { content: `Blocked by a PreToolUse hook: ${pre.block ?? pre.stop}`, isError: true };
  }
  let approval: HookApproval | undefined = pre.permission === 'allow' ? 'allow' : undefined;
  if (pre.permission === 'ask') {
    try {
      await session.gate.check(hookAsk(session, call, pre.permissionReason), call.name, call.id);
    } catch (err) {
      if (err instanceof PermissionDeniedError) return { content: err.message, isError: true };
      if (session.controller.signal.aborted || isAbortError(err)) return { content: CANCELLED_RESULT, isError: true };
      throw err;
    }
    approval = 'approved';
  }
  const result = await executeTool(session, call, { ...opts, ...(approval ? { hookApproval: approval } : {}) });
  const notes = pre.context ? [`PreToolUse hook context: ${pre.context}`] : [];
  if (result.isError && !session.controller.signal.aborted && hooks.has('PostToolUseFailure')) {
    const failed = await hooks.postToolUseFailure(call, result.content);
    if (failed.stop) session.hookStop ??= { event: 'PostToolUseFailure', reason: failed.stop };
    if (failed.feedback) notes.push(`PostToolUseFailure hook feedback: ${failed.feedback}`);
  }
  if (!result.isError && !session.controller.signal.aborted) {
    // A PostToolUse hook is often a formatter: what it changes is the session's too (checkpoints, DESIGN §18).
    const runPost = () => hooks.postToolUse(call, result.content, result.metadata);
    if (session.changes && hooks.has('PostToolUse') && !(await snapshotsReady(session))) return { content: CANCELLED_RESULT, isError: true };
    const post = session.changes ? await session.changes.watch(runPost) : await runPost();
    if (post.stop) session.hookStop ??= { event: 'PostToolUse', reason: post.stop };
    if (post.feedback) notes.push(`PostToolUse hook feedback: ${post.feedback}`);
  }
  return notes.length ? { ...result, content: `${result.content}\n\n${notes.join('\n')}` } : result;
}

/** The ask a PreToolUse hook's `ask` forces: the call's permission key and main argument, asked even where a rule allows it. */
function hookAsk(session: LiveSession, call: ToolUsePart, reason: string | undefined): PermissionRequest {
  const input = typeof call.input === 'object' && call.input !== null ? Object.entries(call.input) : [];
  const field = (name: string) => input.find(([key]) => key === name)?.[1];
  const main = [field('command'), field('file_path'), field('url'), field('path'), field('pattern')].find((v): v is string => typeof v === 'string');
  const permission = call.name === 'write' || call.name === 'edit' ? 'edit' : call.name;
  const why = `a PreToolUse hook asks for approval${reason ? `: ${reason}` : ''}`;
  return {
    permission,
    patterns: main !== undefined ? [main] : [],
    subject: main !== undefined ? `${call.name} ${main}` : call.name,
    mustAsk: why,
  };
}

export interface ExecuteOptions extends RunCallsOptions {
  /** Position of the call among the calls to the same tool in its message. */
  batchIndex?: number;
  /** What a PreToolUse hook said about this call (permission/gate.ts). */
  hookApproval?: HookApproval;
}

/** Runs one tool call with the session's permissions, without emitting tool events. */
export interface ExecutedCall {
  content: string;
  isError: boolean;
  metadata?: Record<string, unknown>;
  /** Pictures the tool returned, not yet stored (runOne stores them). */
  images?: PreparedImage[];
}

export async function executeTool(session: LiveSession, call: ToolUsePart, opts: ExecuteOptions = {}): Promise<ExecutedCall> {
  const tool = findTool(session, call.name);
  if (!tool) {
    const available = session.tools.map((t) => t.name).join(', ');
    const hint = session.missingToolHints[call.name];
    const why = hint ? ` ${hint}` : '';
    return { content: `Unknown tool "${call.name}".${why} Available tools: ${available}.`, isError: true };
  }
  const schema = opts.byUser && tool.userParameters ? tool.userParameters : tool.parameters;
  const parsed = schema.safeParse(call.input ?? {});
  if (!parsed.success) {
    return {
      content: `Invalid arguments for tool "${call.name}":\n${z.prettifyError(parsed.error)}\nFix the arguments and call the tool again.`,
      isError: true,
    };
  }
  // Plan mode (DESIGN §26) refuses tools that change things, even those that never ask.
  const refusal = session.gate.modeRefusal(tool.name);
  if (refusal !== undefined) return { content: refusal, isError: true };
  const signal = session.controller.signal;
  // The snapshots a change must follow (checkpoints) are awaited only by tools that can change files.
  if (session.changes && changesFiles(tool) && !(await snapshotsReady(session))) return { content: CANCELLED_RESULT, isError: true };
  const ctx: ToolContext = {
    sessionId: session.id,
    cwd: session.cwd,
    agent: session.agentName,
    callId: call.id,
    signal,
    ask: (request) => session.gate.check(request, call.name, call.id, opts.hookApproval),
    progress: (metadata) => session.emit('tool.progress', { call_id: call.id, tool: call.name, metadata }),
    todos: session.todos,
    fileViews: session.fileViews,
    askUser: (question, options) => session.askUser(session, question, options),
    batchIndex: opts.batchIndex ?? 0,
    ...(opts.byUser ? { byUser: true } : {}),
    ...(session.sandbox ? { sandbox: session.sandbox } : {}),
    ...(session.container ? { runner: session.container } : session.containerOnDemand ? { runnerOnDemand: session.containerOnDemand } : {}),
    ...(session.toolEnv ? { env: session.toolEnv } : {}),
    shells: session.shells,
    ...(session.changes ? { changes: session.changes } : {}),
    ...(session.teamStore ? { team: { store: session.teamStore, caller: session } } : {}),
  };
  try {
    if (signal.aborted) return { content: CANCELLED_RESULT, isError: true };
    const run = () => tool.execute(parsed.data, ctx);
    // A tool that may change files without saying which is watched (checkpoints, DESIGN §18).
    const watched = !tool.readOnly && tool.fileChanges === undefined && session.changes;
    const result = watched ? await watched.watch(run) : await run();
    return {
      content: result.output,
      isError: result.isError ?? false,
      ...(result.metadata ? { metadata: result.metadata } : {}),
      ...(result.images?.length ? { images: result.images } : {}),
    };
  } catch (err) {
    if (signal.aborted || isAbortError(err)) return { content: CANCELLED_RESULT, isError: true };
    if (err instanceof PermissionDeniedError || err instanceof ToolError) return { content: err.message, isError: true };
    return { content: `Tool "${call.name}" failed: ${errorMessage(err)}`, isError: true };
  }
}
