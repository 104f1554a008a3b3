// The event protocol's constants (docs/events.md), free of zod so the program pays nothing
// for them at start-up: the schemas in ./schema.ts are loaded only by the build (to write
// the JSON Schema) and by the tests (to validate events).

/** The version of the event protocol `run --format json` announces on its first line. */
export const EVENT_PROTOCOL_VERSION = 1;

/** How the package exports the JSON Schema (`require.resolve` / `import.meta.resolve` this). */
export const EVENTS_SCHEMA_ID = 'opencode-ink/events.schema.json';

/** Every event type, in the order DESIGN §6 lists them; ../events.ts checks it against the schema. */
export const EVENT_TYPES = [
  'session.created',
  'session.status',
  'message.started',
  'message.retrying',
  'request.retrying',
  'text.delta',
  'thinking.delta',
  'tool.started',
  'tool.progress',
  'tool.completed',
  'message.completed',
  'question.asked',
  'question.answered',
  'permission.asked',
  'permission.replied',
  'permission.auto',
  'turn.completed',
  'session.compacted',
  'message.delivered',
  'message.dropped',
  'session.detached',
  'shell.started',
  'shell.exited',
  'prompt.images',
  'session.reverted',
  'session.diff_stat',
  'error',
  'hook.notice',
  'file.kept',
  'result.arrived',
  'team.task',
  'team.message',
] as const;
