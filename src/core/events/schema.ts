/*
 * The event protocol as data (DESIGN §2, §6): every event the core emits — to the Ink UI, to
 * `run --format json`, to tests — is defined once here with zod. The TypeScript types in
 * ../events.ts are derived from these definitions, the build writes the JSON Schema shipped
 * as `dist/events.schema.json` from them (`eventsJsonSchema`), and the tests validate every
 * event they see with them. docs/events.md describes the protocol for integrators.
 *
 * Compatibility: within one EVENT_PROTOCOL_VERSION, changes are additive only (new optional
 * fields, new event types, new keys in tool metadata); anything else bumps the version.
 * Event objects are strict (every field is declared here, so a field cannot be added by
 * accident); tool metadata known to the UI is typed but open to further keys.
 *
 * Only the build and the tests load this module; the program itself uses the derived types
 * and the zod-free constants in ./protocol.ts.
 */
import * as z from 'zod';
import { EVENT_PROTOCOL_VERSION, EVENTS_SCHEMA_ID } from './protocol.js';
import { PERMISSION_MODES } from '../permission/modes.js';

const id = z.string().min(1);
const count = z.number().int().nonnegative();

/**
 * `queued`: a sub-agent waiting for a free slot under its parent's `max_concurrency`.
 * `limited`: a sub-agent stopped by its cap on model requests (`max_turns`); the status event's
 * `reason` names the limit and the setting that raises it.
 */
export const SessionStatusSchema = z.enum(['queued', 'running', 'idle', 'completed', 'limited', 'failed', 'cancelled', 'interrupted']);

export const PermissionReplySchema = z.enum(['once', 'always', 'reject']);

/** What a `task` call's result says about its child (the `state` of `<task … state="…">`). */
export const TaskStateSchema = z.enum(['completed', 'limited', 'failed', 'cancelled', 'running']);

export const UsageSchema = z.strictObject({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
});

/** The `task` tool's live progress (`tool.progress` metadata of a `task` call). */
export const TaskProgressSchema = z
  .looseObject({
    session_id: id.describe('The child session running the task.'),
    agent: z.string().describe('The sub-agent type.'),
    status: SessionStatusSchema,
    tool_calls: count.describe('Tool calls the child has started so far.'),
    latest_tool: z.string().optional().describe('The name of the tool the child started last.'),
    elapsed_ms: count.describe('Time since the task was accepted, queueing included.'),
    runner: z
      .object({ host: z.string(), container: z.string() })
      .optional()
      .describe('Where the sub-agent\'s commands run once its container is up (`runner.kind: "docker"`): the host URL and the container\'s name.'),
  })
  .meta({ id: 'TaskProgress' });

/** How an isolated task's work came back into its parent's working tree (DESIGN §17). */
export const MergeOutcomeSchema = z
  .strictObject({
    state: z
      .enum(['merged', 'conflict', 'none'])
      .describe('merged: applied to the parent\'s tree as uncommitted changes; conflict: nothing applied, work kept on `branch`; none: nothing to merge, or not merged (a cancelled task keeps its work on `branch`).'),
    files: z.array(z.string()).describe('merged: the files changed in the parent\'s tree; conflict: the conflicting files; none: the files kept on `branch`, if any.'),
    branch: z.string().optional().describe('The git branch holding the task\'s work when it was kept (`opencode/<session id>`).'),
    base: z.string().optional().describe('The commit the task started from: `git diff <base> <branch>` shows its changes.'),
    reason: z.string().optional().describe('Why the work was not merged.'),
  })
  .meta({ id: 'MergeOutcome' });

/** What a finished (or backgrounded) `task` call reports (`tool.completed` metadata). */
export const TaskOutcomeSchema = z
  .looseObject({
    session_id: id.describe('The child session; give it as `session_id` to resume the task.'),
    agent: z.string(),
    state: TaskStateSchema,
    tool_log: z
      .array(
        z.object({
          tool: z.string(),
          arg: z.string().describe('The call\'s main argument, shortened (a path, a command, a pattern).'),
          status: z.enum(['ok', 'error', 'unfinished']),
        }),
      )
      .optional()
      .describe('The child\'s tool calls, oldest first, as listed in the result\'s <tool_log>.'),
    tool_log_earlier: count.optional().describe('Earlier calls left out of `tool_log`.'),
    report: z
      .string()
      .optional()
      .describe("The sub-agent's final text as the result's <task_result> carries it (with a note when it stopped early); absent for a background start."),
    merge: MergeOutcomeSchema.optional().describe('For a task run with isolation "worktree": how its work came back.'),
    fork: z.literal(true).optional().describe("The task is a fork: a copy of the calling session that started from its conversation (`task` with `fork: true` or `subagent_type: \"fork\"`, or `/fork`)."),
    runner: z
      .object({ host: z.string(), container: z.string() })
      .optional()
      .describe('Where the sub-agent\'s commands ran when it had a container of its own (`runner.kind: "docker"`): the host URL and the container\'s name.'),
  })
  .meta({ id: 'TaskOutcome' });

/** What `edit` and `write` report once done: the change as a unified diff with real line numbers. */
export const FileChangeSchema = z
  .looseObject({
    path: z.string().describe('The file, as shown to the user (relative to the working directory when inside it).'),
    diff: z.string().describe('Unified diff hunks of the change.'),
    created: z.boolean().optional(),
    replacements: count.optional(),
  })
  .meta({ id: 'FileChange' });

/** Metadata of tools the protocol does not type (yet): any JSON object. */
export const OpenMetadataSchema = z.record(z.string(), z.unknown());

/** An image in the conversation, as shown to the user: `[image shot.png 64×64]` (DESIGN §22). */
export const ImageRefSchema = z
  .strictObject({
    name: z.string().describe("The file's base name."),
    width: count.describe('Pixels, as sent to the model (after any scaling down).'),
    height: count,
    media_type: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
  })
  .meta({ id: 'ImageRef' });

/** The tools whose metadata is typed above; every other tool name carries open metadata. */
export const TYPED_METADATA_TOOLS = ['task', 'edit', 'write'] as const;
const otherTool = z
  .string()
  .regex(new RegExp(`^(?!(?:${TYPED_METADATA_TOOLS.join('|')})$)`))
  .describe('Any tool but those whose metadata is typed.');

const envelope = {
  session_id: id,
  agent: z.string().describe('The agent the session runs.'),
  path: z.array(id).min(1).describe('Session ids from the root session down to and including this one.'),
  ts: z.number().describe('Milliseconds since the Unix epoch.'),
};

/** The fields every event carries besides its `type`. */
export const EventEnvelopeSchema = z.strictObject(envelope);

function event<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.strictObject({ type: z.literal(type), ...envelope, ...shape });
}

export const SessionCreatedSchema = event('session.created', {
  parent_id: id.nullable(),
  title: z.string(),
  tool_call_id: id.nullable().describe("The parent's `task` call that started this session."),
  task_description: z.string().nullable().describe("The `task` call's description; null for a root session."),
  depth: count.describe('0 for a root session, 1 for its sub-agents, and so on.'),
});
export const SessionStatusEventSchema = event('session.status', {
  status: SessionStatusSchema,
  reason: z.string().optional(),
});
export const MessageStartedSchema = event('message.started', { message_id: id });
/** The provider retries a stream that failed part-way: drop what this message streamed so far. */
export const MessageRetryingSchema = event('message.retrying', { attempt: count, delay_ms: count, reason: z.string() });
/**
 * A model request failed and will be tried again (overloaded, rate limited, a dropped
 * connection, a stall), whether or not it had started streaming: what the user is waiting out.
 */
export const RequestRetryingSchema = event('request.retrying', {
  attempt: count.describe('The attempt about to be made: 2 for the first retry.'),
  max_attempts: count.describe('Attempts allowed in all (the provider\'s maxRetries + 1).'),
  delay_ms: count.describe('The wait before that attempt.'),
  reason: z.string().describe('The failure in a few words, e.g. "overloaded", "rate limited", "connection refused".'),
  message: z.string().describe('The failure in one full sentence, naming the service.'),
});
export const TextDeltaSchema = event('text.delta', { text: z.string() });
export const ThinkingDeltaSchema = event('thinking.delta', { text: z.string() });
export const ToolStartedSchema = event('tool.started', { call_id: id, tool: z.string(), input: z.unknown() });
export const ToolProgressSchema = z.union([
  event('tool.progress', { call_id: id, tool: z.literal('task'), metadata: TaskProgressSchema }),
  event('tool.progress', { call_id: id, tool: otherTool, metadata: OpenMetadataSchema }),
]);
const completed = {
  call_id: id,
  output: z.string(),
  is_error: z.boolean(),
  images: z.array(ImageRefSchema).optional().describe('Images the tool returned to the model (`read` of a picture).'),
};
export const ToolCompletedSchema = z.union([
  event('tool.completed', { ...completed, tool: z.literal('task'), metadata: TaskOutcomeSchema.optional() }),
  event('tool.completed', { ...completed, tool: z.enum(['edit', 'write']), metadata: FileChangeSchema.optional() }),
  event('tool.completed', { ...completed, tool: otherTool, metadata: OpenMetadataSchema.optional() }),
]);
export const MessageCompletedSchema = event('message.completed', {
  message_id: id,
  usage: UsageSchema,
  stop_reason: z.string(),
  cost: z.number().nonnegative().optional().describe('USD this reply cost, so totals can move while a turn (or a sub-agent) runs.'),
});
export const QuestionAskedSchema = event('question.asked', { question_id: id, question: z.string(), options: z.array(z.string()) });
export const QuestionAnsweredSchema = event('question.answered', {
  question_id: id,
  answer: z.string().optional(),
  declined: z.boolean().optional(),
  cancelled: z.boolean().optional(),
});
export const PermissionAskedSchema = event('permission.asked', {
  request_id: id,
  tool: z.string(),
  subject: z.string(),
  permission: z.string().describe('The rule key: edit, bash, webfetch, external_directory, task, or a tool name.'),
  patterns: z.array(z.string()),
  always: z.array(z.string()).optional().describe('The patterns "always allow" would store.'),
  call_id: id.optional().describe('The tool call waiting on the answer.'),
  file: z.string().optional().describe('The file a write or an edit would change, as shown to the user.'),
  reason: z
    .string()
    .optional()
    .describe('Why this is asked even where a rule allows it, e.g. "writes .git/config, which controls git: always asked".'),
  outside_sandbox: z
    .string()
    .optional()
    .describe('Set when a sandbox is configured but this command would run outside it (DESIGN §19): why.'),
});
export const PermissionRepliedSchema = event('permission.replied', { request_id: id, reply: PermissionReplySchema });
/** A request the session's permission mode (DESIGN §26) or an active skill's `allowed-tools` let run without asking anyone; also stored for `sessions show`. */
export const PermissionAutoSchema = event('permission.auto', {
  mode: z.enum(PERMISSION_MODES).describe('The mode that skipped the approval.'),
  tool: z.string(),
  subject: z.string().describe('What the request would have shown to the user.'),
  permission: z.string().describe('The rule key: edit, bash, webfetch, external_directory, task, or a tool name.'),
  patterns: z.array(z.string()),
  call_id: id.optional().describe('The tool call it let through.'),
  file: z.string().optional().describe('The file a write or an edit changes, as shown to the user.'),
  skill: z
    .string()
    .optional()
    .describe('Set when an active skill\'s allowed-tools let it run rather than the mode: the skill\'s name; for a command file\'s allowed-tools, `/` and the command\'s name (`/review`).'),
});
/** The user's prompt carries images (`@shot.png`, a pasted image path); sent before the turn starts. */
export const PromptImagesSchema = event('prompt.images', { images: z.array(ImageRefSchema).min(1) });
export const TurnCompletedSchema = event('turn.completed', { usage: UsageSchema, cost: z.number().nonnegative() });
export const ErrorEventSchema = event('error', { message: z.string() });
/** Older turns were replaced by a stored summary message in the requests from now on (DESIGN §12). */
export const SessionCompactedSchema = event('session.compacted', {
  summary_message_id: id.describe('The stored summary message; the history before it is kept in the store.'),
  reason: z.enum(['auto', 'manual', 'overflow']).describe('Near the window, `/compact`, or a `prompt is too long` answer.'),
  tokens_before: count.describe('Estimated request size before compacting.'),
  tokens_after: count.describe('Estimated request size after compacting.'),
  pruned: count.describe('Old tool outputs left out of the request before summarising.'),
  context_window: count.describe("The model's context window in tokens."),
});
/** Files were put back from snapshots: undo, redo, rewind, or one sub-agent's revert (DESIGN §18). */
export const SessionRevertedSchema = event('session.reverted', {
  action: z.enum(['undo', 'redo', 'rewind', 'revert']).describe('What the user asked for.'),
  files: z.array(z.string()).describe('Project files written or removed, relative to the project root.'),
  from_snapshot: z.string().nullable().describe('The snapshot the files were taken from (the state being left), when there was one.'),
  to_snapshot: z.string().nullable().describe('The snapshot the files were restored to; null when no files were restored (only the conversation changed, or the turns stepped back over changed no file).'),
  hidden_message_ids: z.array(id).describe('Messages hidden from the conversation the model sees next (kept in the store, marked undone).'),
  restored_message_ids: z.array(id).describe('Messages a redo brought back into the conversation.'),
  left_alone: z
    .array(
      z.strictObject({
        path: z.string().describe('Relative to the project root.'),
        also_changed_by: z.array(id).describe('The other sessions that changed it while this one ran.'),
      }),
    )
    .optional()
    .describe("A sub-agent's revert: files it changed that another session also changed while it ran, left as they are."),
});

/** A finished sub-agent's changes to the project's files, its descendants' included (DESIGN §18): between its start and end snapshots, kept to the files it recorded changing. */
export const DiffStatSchema = z
  .strictObject({
    files: count.describe('Files added, changed or removed.'),
    additions: count.describe('Lines added (binary files count none).'),
    deletions: count.describe('Lines removed (binary files count none).'),
  })
  .meta({ id: 'DiffStat' });
/** A sub-agent's end snapshot was taken: what it changed, computed once (0 files when it changed none). */
export const SessionDiffStatSchema = event('session.diff_stat', { stat: DiffStatSchema });

/** A hook (DESIGN §20) blocked something, stopped the agent, or failed: what the user should know. */
export const HookNoticeSchema = event('hook.notice', {
  hook_event: z
    .enum(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'SessionStart', 'PreCompact', 'Notification', 'TaskCreated', 'TaskCompleted', 'TeammateIdle'])
    .describe("The hook event, in Claude Code's spelling."),
  kind: z
    .enum(['blocked', 'stopped', 'warning'])
    .describe('blocked: a tool call, a prompt or a stop was refused; stopped: a hook ended the turn (`continue: false`); warning: a hook failed, timed out or said something (`systemMessage`), and the turn went on.'),
  message: z.string(),
  call_id: id.optional().describe('The tool call concerned, for PreToolUse and PostToolUse.'),
});
/** Steering (DESIGN §23): a message sent to a session entered its history as a user message. */
export const MessageDeliveredSchema = event('message.delivered', {
  text: z.string().describe('The message, as the session\'s model reads it.'),
  sender: z
    .enum(['user', 'parent'])
    .describe('user: typed in the session\'s view or sent through `sendToSession`; parent: its parent\'s `task` call with this `session_id`.'),
  continued: z
    .boolean()
    .describe('false: queued while the session ran and delivered at its next turn boundary; true: it continued a finished sub-agent.'),
});
/** Steering (DESIGN §23): a message sent to a session never reached its model; the sender is told, nothing is lost silently. */
export const MessageDroppedSchema = event('message.dropped', {
  text: z.string().describe('The message that was not delivered.'),
  sender: z.enum(['user', 'parent']).describe('Who sent it, as in `message.delivered`.'),
  reason: z
    .enum(['cancelled', 'finished'])
    .describe('cancelled: the session was cancelled (or timed out) before its next turn boundary; finished: it had ended its run when the message arrived.'),
});
/** Steering (DESIGN §23): a running foreground sub-agent was sent to the background; its parent's `task` call returned `state="running"`. */
export const SessionDetachedSchema = event('session.detached', {
  parent_id: id.describe('The parent that goes on without waiting; the result reaches it later as a background result.'),
  tool_call_id: id.nullable().describe("The parent's `task` call that returned at once."),
});
/** A background command (`bash` with `run_in_background`) started (DESIGN §23). */
export const ShellStartedSchema = event('shell.started', {
  shell_id: id.describe('The id the model reads and stops it by (`bash_output`, `kill_shell`); unique within its session.'),
  command: z.string(),
  description: z.string().optional().describe("The `bash` call's description."),
  pid: count.nullable().describe('The process started: the shell, or the sandbox program in front of it.'),
});
/** A background command ended: on its own, by `kill_shell`, or because its session ended (DESIGN §23). */
export const ShellExitedSchema = event('shell.exited', {
  shell_id: id,
  command: z.string(),
  pid: count.nullable(),
  exit_code: z.number().int().nullable().describe('Null when a signal ended it or it never started.'),
  signal: z.string().nullable(),
  reason: z
    .enum(['exited', 'killed', 'session_ended'])
    .describe('exited: it ended on its own; killed: `kill_shell`; session_ended: its session ended (the sub-agent\'s run ended or was cancelled, or the program exits).'),
});
/**
 * A command that must keep a file's text (`/init` and AGENTS.md) found the agent had dropped
 * lines of it, or its turn did not finish, and put the user's text back (DESIGN §10).
 */
export const FileKeptSchema = event('file.kept', {
  file: z.string().describe('The file, relative to the project root.'),
  action: z
    .enum(['restored', 'merged'])
    .describe("restored: the file is byte for byte as before the turn; merged: the user's text intact, the agent's new lines after it under a heading."),
  message: z.string().describe('What happened, in one sentence for the user.'),
});

/**
 * A sub-agent's result reached this session after its `task` call had returned: a background
 * task finished, a child sent to the background (Ctrl+B) finished, or a continued child
 * reported again (DESIGN §23). Emitted as the result is handed over, before the turn that reads it.
 */
export const ResultArrivedSchema = event('result.arrived', {
  child_id: id.describe('The sub-agent whose result arrived.'),
  child_agent: z.string().describe("The sub-agent's agent name."),
  description: z.string().describe("The task's description (its agent name when it had none)."),
  state: TaskStateSchema.describe("The sub-agent's state as its result says."),
  follow_up: z.boolean().describe('true: a further report of a task that had already delivered a result (a continued child, or a background result passed up).'),
});

/** A task of the team's shared list (DESIGN §24), as `task_list list` and `sessions show --json` give it. */
export const TeamTaskSchema = z
  .strictObject({
    id: id.describe('"1", "2", … in creation order, within the root session\'s list.'),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(['pending', 'in_progress', 'completed']),
    owner: z.string().nullable().describe('`lead`, a teammate\'s name, or a sub-agent\'s session id; null when unowned.'),
    owner_session_id: id.nullable().describe("The owner's session."),
    blocked_by: z.array(id).describe('Tasks that must be completed before this one can be claimed.'),
    result: z.string().nullable().describe('What the session that completed it said.'),
  })
  .meta({ id: 'TeamTask' });
/** The team's task list changed (DESIGN §24); the event's session is the one that changed it. */
export const TeamTaskEventSchema = event('team.task', {
  action: z
    .enum(['created', 'claimed', 'completed', 'updated'])
    .describe('updated: any other change, including a task put back to pending because its owner failed.'),
  task: TeamTaskSchema,
});

/**
 * A message between the members of a team (DESIGN §24): `send_message`, or the team telling a
 * teammate a task was assigned to it. The event's session is the sender's; `to` is one
 * recipient (a broadcast is one event per recipient).
 */
export const TeamMessageEventSchema = event('team.message', {
  from: z.string().describe('`lead`, a teammate\'s name, `user`, or `team` for the team\'s own notices.'),
  to: z.string().describe('`lead` or a teammate\'s name.'),
  to_session_id: id.describe("The recipient's session."),
  text: z.string(),
  shutdown: z.boolean().describe('true: the sender asked the recipient to end after its current turn.'),
});

/** Every core event. */
export const CoreEventSchema = z
  .union([
    SessionCreatedSchema,
    SessionStatusEventSchema,
    MessageStartedSchema,
    MessageRetryingSchema,
    RequestRetryingSchema,
    TextDeltaSchema,
    ThinkingDeltaSchema,
    ToolStartedSchema,
    ToolProgressSchema,
    ToolCompletedSchema,
    MessageCompletedSchema,
    QuestionAskedSchema,
    QuestionAnsweredSchema,
    PermissionAskedSchema,
    PermissionRepliedSchema,
    PermissionAutoSchema,
    TurnCompletedSchema,
    SessionCompactedSchema,
    MessageDeliveredSchema,
    MessageDroppedSchema,
    SessionDetachedSchema,
    ShellStartedSchema,
    ShellExitedSchema,
    PromptImagesSchema,
    SessionRevertedSchema,
    SessionDiffStatSchema,
    ErrorEventSchema,
    HookNoticeSchema,
    FileKeptSchema,
    ResultArrivedSchema,
    TeamTaskEventSchema,
    TeamMessageEventSchema,
  ])
  .meta({ id: 'CoreEvent' });

/** The first line of `run --format json`: which protocol the lines after it follow. */
export const ProtocolLineSchema = z
  .strictObject({
    type: z.literal('protocol'),
    version: z.literal(EVENT_PROTOCOL_VERSION),
    schema: z.literal(EVENTS_SCHEMA_ID).describe('Where the package exports this JSON Schema.'),
  })
  .meta({ id: 'ProtocolLine' });

/** One line of `run --format json`. */
export const StreamLineSchema = z.union([ProtocolLineSchema, CoreEventSchema]);

/** The JSON Schema (draft 2020-12) of one line of `run --format json`; the build ships it. */
export function eventsJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(StreamLineSchema, { target: 'draft-2020-12', io: 'output' }),
    $id: EVENTS_SCHEMA_ID,
    title: 'opencode-ink event stream',
    description: `One line of \`opencode-ink run --format json\`: a protocol line first, then core events. Protocol version ${EVENT_PROTOCOL_VERSION}; see docs/events.md.`,
    'x-protocol-version': EVENT_PROTOCOL_VERSION,
  };
}
