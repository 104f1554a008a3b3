// One library query (DESIGN §21): a prompt run to completion in a root session, as `run`
// does, with the same core and the same events. Contract:
// - The run starts on the next tick after `query()` returns; its events are queued for the
//   one iterator until read, and `result()` settles once the session has nothing left under
//   way (background tasks included), with the final text, the session id and the usage and
//   cost of every session of the tree during this query.
// - Permission asks and `ask_user` questions from any depth go to `canUseTool` and
//   `onQuestion`; without them they are refused as in `run`. A callback that throws or
//   answers nonsense refuses (or declines) that one request and says so in a warning.
// - `signal` cancels every running turn of the tree, children and their processes included;
//   `result()` then rejects with an AbortError.
// - `sendToSession(id, text)` steers a session of the query's tree while it runs (DESIGN §23):
//   a running one gets the message at its next turn boundary, a finished sub-agent is
//   continued with it and its new result goes to its parent; before the run has started and
//   after it ended it throws, as it does for an unknown id. Its `delivery` promise says
//   whether the message reached the model or was dropped (the session was cancelled first).
// - Configuration, credential and session problems reject `result()` (and end the iteration
//   with the same error) with one sentence. The engine and the store are closed either way.
import { Engine, projectParts, type SendReceipt } from '../core/engine.js';
import type { CoreEvent } from '../core/events.js';
import { emptyUsage, type Usage } from '../core/messages.js';
import { askAction } from '../core/permission/ask-title.js';
import { pickSession } from '../core/pick-session.js';
import { openProject, type OpenedProject } from '../core/project-context.js';
import { credentialProblem } from '../core/provider/credentials.js';
import { BUILTIN_TOOLS } from '../core/tools/index.js';
import { EventQueue } from './event-queue.js';
import type { CheckedOptions, PermissionAnswer } from './options.js';

export interface QueryResult {
  /** The last assistant text of the root session. */
  text: string;
  /** The root session's id: pass it as `sessionId` to continue the conversation. */
  sessionId: string;
  /** `completed`, or `max_turns` when the agent's turn limit stopped it. */
  status: 'completed' | 'max_turns';
  /** Tokens of every session of the tree (sub-agents included) during this query. */
  usage: Usage;
  /** Cost in US dollars of the same, by the configured prices. */
  cost: number;
}

/** A running query: iterate it for the events, or await `result()`. */
export interface Query extends AsyncIterable<CoreEvent> {
  result(): Promise<QueryResult>;
  /** Sends a message to a running session of this query (or continues a finished sub-agent); see DESIGN §23. */
  sendToSession(sessionId: string, text: string): SendReceipt;
}

/** How a query that ran ended badly: the turn failed, or the configuration or credentials were refused. */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

const PERMISSION_ANSWERS: ReadonlySet<string> = new Set<PermissionAnswer>(['once', 'always', 'reject']);

export function startQuery(options: CheckedOptions): Query {
  const events = new EventQueue<CoreEvent>('A query');
  let running: Engine | undefined;
  const done = Promise.resolve().then(() =>
    runQuery(options, (event) => events.push(event), (engine) => {
      running = engine;
    }),
  );
  done.then(
    () => events.close(),
    (error: unknown) => events.close(error),
  );
  return {
    result: () => done,
    sendToSession: (sessionId, text) => {
      if (!running) throw new Error('The query is not running: sendToSession works between its first event and its result.');
      return running.sendToSession(sessionId, text);
    },
    [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
  };
}

async function runQuery(options: CheckedOptions, emit: (event: CoreEvent) => void, started: (engine: Engine | undefined) => void): Promise<QueryResult> {
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`${line}\n`));
  const signal = options.signal;
  if (signal?.aborted) throw abortError();
  const project = openProject({
    cwd: options.cwd,
    env: process.env,
    trustOnce: options.trust ?? false,
    agents: options.agents,
    extraTools: options.tools.map((t) => t.name),
  });
  let engine: Engine | undefined;
  try {
    for (const line of project.warnings) warn(line);
    if (project.trust.notice) warn(project.trust.notice);
    const problem = credentialProblem(project.config, process.env, options.model);
    if (problem) throw new QueryError(problem);
    engine = createEngine(project, options, warn);
    const running = engine;
    started(running);
    const usage = emptyUsage();
    let cost = 0;
    running.on((event) => {
      if (event.type === 'turn.completed') {
        usage.input_tokens += event.usage.input_tokens;
        usage.output_tokens += event.usage.output_tokens;
        usage.cache_creation_input_tokens += event.usage.cache_creation_input_tokens;
        usage.cache_read_input_tokens += event.usage.cache_read_input_tokens;
        cost += event.cost;
      }
      emit(event);
    });
    routeRequests(running, options, warn);
    const sessionId = pickSession(running, { ...(options.sessionId !== undefined ? { session: options.sessionId } : {}), ...(options.agent !== undefined ? { agent: options.agent } : {}) });
    if (options.sessionId !== undefined && options.agent !== undefined && running.getSession(sessionId)?.agent !== options.agent) running.setAgent(sessionId, options.agent);
    const cancel = () => running.cancelAll();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const first = await running.prompt(sessionId, options.prompt);
      // Background tasks may still be running; their results start further turns.
      await running.settled(sessionId);
      const outcome = running.lastOutcome(sessionId) ?? first;
      if (outcome.status === 'cancelled' || signal?.aborted) throw abortError();
      if (outcome.status === 'failed') throw new QueryError(outcome.error ?? 'The run failed.');
      return { text: outcome.text, sessionId, status: outcome.status, usage, cost };
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  } finally {
    started(undefined);
    await engine?.close();
    project.store.close();
  }
}

function createEngine(project: OpenedProject, options: CheckedOptions, warn: (line: string) => void): Engine {
  return new Engine({
    ...projectParts(project),
    // Asks reach the callbacks through the events; without a callback the broker refuses them as in `run`.
    interactive: options.canUseTool !== undefined,
    answersQuestions: options.onQuestion !== undefined,
    autoApprove: false,
    ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    tools: [...BUILTIN_TOOLS, ...options.tools],
    onWarning: warn,
  });
}

/** Sends each pending permission ask and question of the tree to the program's callbacks. */
function routeRequests(engine: Engine, options: CheckedOptions, warn: (line: string) => void): void {
  const { canUseTool, onQuestion } = options;
  /** Inputs of the calls under way, so an ask can carry what its call was given. */
  const inputs = new Map<string, unknown>();
  engine.on((event) => {
    switch (event.type) {
      case 'tool.started':
        inputs.set(event.call_id, event.input);
        return;
      case 'tool.completed':
        inputs.delete(event.call_id);
        return;
      case 'permission.asked': {
        if (!canUseTool) return;
        const input = event.call_id !== undefined ? inputs.get(event.call_id) : undefined;
        const title = askAction(event);
        const request = input !== undefined ? { ...event, input, title } : { ...event, title };
        void settle(() => canUseTool(request)).then((answer) => {
          if (answer.ok && isPermissionAnswer(answer.value)) {
            engine.replyPermission(event.request_id, answer.value);
            return;
          }
          const why = answer.ok ? `answered ${JSON.stringify(answer.value)} instead of "once", "always" or "reject"` : `threw: ${errorText(answer.error)}`;
          warn(`Warning: canUseTool ${why}; the request (${event.tool}) was refused.`);
          engine.replyPermission(event.request_id, 'reject', `${event.tool} was refused: the program's approval callback failed.`);
        });
        return;
      }
      case 'question.asked': {
        if (!onQuestion) return;
        void settle(() => onQuestion(event)).then((answer) => {
          if (answer.ok && typeof answer.value === 'string') {
            engine.answerQuestion(event.question_id, answer.value);
            return;
          }
          if (!answer.ok) warn(`Warning: onQuestion threw: ${errorText(answer.error)}; the question was declined.`);
          else if (answer.value !== undefined) warn(`Warning: onQuestion answered ${JSON.stringify(answer.value)}, not a string; the question was declined.`);
          engine.declineQuestion(event.question_id);
        });
        return;
      }
      default:
        return;
    }
  });
}

function isPermissionAnswer(value: unknown): value is PermissionAnswer {
  return typeof value === 'string' && PERMISSION_ANSWERS.has(value);
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Calls a program's callback, catching what it throws or rejects with. */
async function settle<T>(call: () => T | Promise<T>): Promise<Settled<unknown>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function abortError(): Error {
  const error = new Error('The query was cancelled.');
  error.name = 'AbortError';
  return error;
}
