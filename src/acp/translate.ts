// Pure translations from the core's vocabulary to the Agent Client Protocol's: tool kinds,
// titles, file locations and diffs from a tool call's input and typed metadata, plans from
// `todowrite` input, stop reasons from turn outcomes, and a stored conversation replayed as
// `session/update` notifications. No I/O here, so every mapping is testable on its own.
import { isAbsolute, resolve } from 'node:path';
import type { PlanEntry, SessionUpdate, StopReason, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { TurnOutcome } from '../core/agent/loop.js';
import { imageLabel } from '../core/images/label.js';
import type { Message } from '../core/messages.js';
import type { PublicTeamTask } from '../core/team/index.js';

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  todoread: 'read',
  edit: 'edit',
  write: 'edit',
  glob: 'search',
  grep: 'search',
  bash: 'execute',
  webfetch: 'fetch',
  task: 'think',
  todowrite: 'think',
  ask_user: 'other',
};

export function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? 'other';
}

function record(input: unknown): Record<string, unknown> {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The file a tool call works on, from its input (tools name it `file_path` or `path`). */
export function toolPath(input: unknown): string | undefined {
  const args = record(input);
  return str(args.file_path) ?? str(args.path);
}

function shorten(text: string, max = 80): string {
  const line = text.split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A one-line title an editor shows for the call: the tool and its main argument. */
export function toolTitle(tool: string, input: unknown): string {
  const args = record(input);
  switch (tool) {
    case 'bash':
      return str(args.command) ? `bash: ${shorten(String(args.command))}` : 'bash';
    case 'task': {
      const agent = str(args.subagent_type) ?? 'sub-agent';
      const what = str(args.description);
      return what ? `${agent} (${shorten(what)})` : agent;
    }
    case 'grep':
    case 'glob':
      return str(args.pattern) ? `${tool} ${shorten(String(args.pattern))}` : tool;
    case 'webfetch':
      return str(args.url) ? `fetch ${shorten(String(args.url))}` : 'fetch';
    case 'todowrite':
      return 'Update plan';
    case 'ask_user':
      return str(args.question) ? `Question: ${shorten(String(args.question))}` : 'Question';
    default: {
      const path = toolPath(input);
      return path ? `${tool} ${path}` : tool;
    }
  }
}

/** Where the call works, as absolute paths (editors open them). */
export function toolLocations(input: unknown, cwd: string): ToolCallLocation[] {
  const path = toolPath(input);
  if (!path) return [];
  const args = record(input);
  const line = typeof args.offset === 'number' && Number.isInteger(args.offset) && args.offset > 0 ? args.offset : undefined;
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path), ...(line ? { line } : {}) }];
}

/**
 * The change an `edit` or `write` call makes, as the protocol's diff, from its input: an edit
 * replaces `old_string` by `new_string` (shown as that hunk), a write replaces the whole file.
 */
export function toolDiff(tool: string, input: unknown, cwd: string): ToolCallContent[] {
  const args = record(input);
  const path = toolPath(input);
  if (!path) return [];
  const abs = isAbsolute(path) ? path : resolve(cwd, path);
  if (tool === 'edit' && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    return [{ type: 'diff', path: abs, oldText: args.old_string, newText: args.new_string }];
  }
  if (tool === 'write' && typeof args.content === 'string') {
    return [{ type: 'diff', path: abs, oldText: null, newText: args.content }];
  }
  return [];
}

/** Plain text as tool call content. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

const PLAN_STATUS = { pending: 'pending', in_progress: 'in_progress', completed: 'completed' } as const;

/** The plan a `todowrite` call sets, or undefined when its input is not a todo list. */
export function planFrom(input: unknown): PlanEntry[] | undefined {
  const todos = record(input).todos;
  if (!Array.isArray(todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (const todo of todos) {
    const t = record(todo);
    const content = str(t.content);
    const status = str(t.status);
    // A cancelled task is no longer part of the plan.
    if (!content || status === 'cancelled') continue;
    entries.push({ content, priority: 'medium', status: status && status in PLAN_STATUS ? PLAN_STATUS[status as keyof typeof PLAN_STATUS] : 'pending' });
  }
  return entries;
}

/** The team's shared task list (DESIGN §24) as the editor's plan: one entry per task, with its owner. */
export function teamPlan(tasks: readonly PublicTeamTask[]): PlanEntry[] {
  return tasks.map((task) => ({ content: `#${task.id} ${task.title}${task.owner ? ` (${task.owner})` : ''}`, priority: 'medium', status: task.status }));
}

/** How a prompt turn ended, in the protocol's words. */
export function stopReason(outcome: TurnOutcome, lastModelStop: string | undefined): StopReason {
  switch (outcome.status) {
    case 'cancelled':
      return 'cancelled';
    case 'max_turns':
      return 'max_turn_requests';
    default:
      if (lastModelStop === 'refusal') return 'refusal';
      if (lastModelStop === 'max_tokens') return 'max_tokens';
      return 'end_turn';
  }
}

/**
 * A stored conversation as the updates that show it again (`session/load`): user text,
 * assistant text and thinking, and each tool call followed by its result.
 */
/**
 * `blob` gives a stored image's bytes, so a user's pictures come back as image blocks; a
 * picture whose blob is gone is named as text (`[image shot.png 64×64]`) instead.
 */
export function replayUpdates(messages: readonly Message[], cwd: string, blob: (sha256: string) => Buffer | undefined = () => undefined): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const tools = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          if (!part.text) break;
          updates.push({
            sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
            content: { type: 'text', text: part.text },
          });
          break;
        case 'image': {
          if (message.role !== 'user') break;
          const bytes = blob(part.sha256);
          updates.push({
            sessionUpdate: 'user_message_chunk',
            content: bytes ? { type: 'image', data: bytes.toString('base64'), mimeType: part.media_type } : { type: 'text', text: imageLabel(part) },
          });
          break;
        }
        case 'thinking':
          if (part.thinking) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: part.thinking } });
          break;
        case 'tool_use': {
          tools.set(part.id, part.name);
          if (part.name === 'todowrite') {
            const entries = planFrom(part.input);
            if (entries) updates.push({ sessionUpdate: 'plan', entries });
          }
          const locations = toolLocations(part.input, cwd);
          updates.push({
            sessionUpdate: 'tool_call',
            toolCallId: part.id,
            title: toolTitle(part.name, part.input),
            kind: toolKind(part.name),
            status: 'pending',
            rawInput: part.input,
            content: toolDiff(part.name, part.input, cwd),
            ...(locations.length ? { locations } : {}),
          });
          break;
        }
        case 'tool_result':
          updates.push({
            sessionUpdate: 'tool_call_update',
            toolCallId: part.tool_use_id,
            status: part.is_error ? 'failed' : 'completed',
            ...(tools.get(part.tool_use_id) === 'edit' || tools.get(part.tool_use_id) === 'write' ? {} : { content: [textContent(part.content)] }),
            rawOutput: { output: part.content },
          });
          break;
        default:
          break;
      }
    }
  }
  return updates;
}
