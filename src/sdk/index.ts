// `opencode-ink/sdk`: the core as a library (DESIGN §21), a front end beside the CLI and the
// editor protocol that imports only the core — loading it loads no terminal code (Ink,
// React, the CLI). Contract:
// - `query(options)` checks its options at once (a bad one throws a TypeError of one
//   sentence) and returns a Query: an async iterable of the same events `run --format json`
//   prints (docs/events.md), and `result()` → `{ text, sessionId, status, usage, cost }`.
// - `tool({ name, description, input, run })` defines an in-process tool for `tools`.
// - `canUseTool` and `onQuestion` answer permission asks and `ask_user` from any depth,
//   labelled with the asking session's `agent` and `path`; `signal` cancels the whole tree.
// - `Query.sendToSession(id, text)` steers a running session of the query's tree (DESIGN §23).
import { checkQueryOptions, type QueryOptions } from './options.js';
import { startQuery, type Query } from './query.js';

export type { AgentSpec, PermissionAnswer, PermissionRequest, QueryOptions, QuestionRequest } from './options.js';
export { QueryError, type Query, type QueryResult } from './query.js';
export { tool, type InProcessTool, type ToolCallContext, type ToolDefinition, type ToolOutput } from './tool.js';
export { EVENT_PROTOCOL_VERSION, EVENTS_SCHEMA_ID, type CoreEvent, type EventOf, type EventType } from '../core/events.js';
export type { Usage } from '../core/messages.js';
export type { PermissionMode } from '../core/permission/modes.js';
export type { MessageDelivery, SendOutcome, SendReceipt } from '../core/engine.js';
/** The zod the examples use to describe tool inputs (any zod 4 works). */
export { z } from 'zod';

/** Runs one prompt with the agent in a project folder; see docs/sdk.md. */
export function query(options: QueryOptions): Query {
  return startQuery(checkQueryOptions(options));
}
