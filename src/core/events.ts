// The core's event stream (DESIGN §6). Every consumer — the Ink UI, the `run` printers,
// tests — sees exactly these objects, children's events included, in emission order.

import type { Usage } from './messages.js';

/** `queued`: a sub-agent waiting for a free slot under its parent's `max_concurrency`. */
export type SessionStatus = 'queued' | 'running' | 'idle' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export type PermissionReply = 'once' | 'always' | 'reject';

export interface EventBase {
  session_id: string;
  agent: string;
  /** Session ids from the root down to and including `session_id`. */
  path: string[];
  ts: number;
}

export interface EventPayloads {
  'session.created': { parent_id: string | null; title: string; tool_call_id: string | null };
  'session.status': { status: SessionStatus; reason?: string };
  'message.started': { message_id: string };
  /** The provider is retrying a stream that failed part-way: drop what this message streamed so far. */
  'message.retrying': { attempt: number; delay_ms: number; reason: string };
  'text.delta': { text: string };
  'thinking.delta': { text: string };
  'tool.started': { call_id: string; tool: string; input: unknown };
  'tool.progress': { call_id: string; metadata: Record<string, unknown> };
  /** `metadata`: what the tool reported besides its output, e.g. an edit's diff. */
  'tool.completed': { call_id: string; output: string; is_error: boolean; metadata?: Record<string, unknown> };
  'message.completed': { message_id: string; usage: Usage; stop_reason: string };
  'question.asked': { question_id: string; question: string; options: string[] };
  'question.answered': { question_id: string; answer?: string; declined?: boolean; cancelled?: boolean };
  /**
   * `call_id`: the tool call waiting on the answer, when a tool call asks. `always`: the exact
   * patterns an "always" answer would grant for the session tree (`git status*`).
   */
  'permission.asked': {
    request_id: string;
    tool: string;
    subject: string;
    permission: string;
    patterns: string[];
    always?: string[];
    call_id?: string;
  };
  'permission.replied': { request_id: string; reply: PermissionReply };
  'turn.completed': { usage: Usage; cost: number };
  error: { message: string };
}

export type EventType = keyof EventPayloads;

export type CoreEvent = {
  [K in EventType]: EventBase & { type: K } & EventPayloads[K];
}[EventType];

export type EventOf<K extends EventType> = Extract<CoreEvent, { type: K }>;

export type EventListener = (event: CoreEvent) => void;

/** A minimal synchronous fan-out: listeners run in registration order, errors isolated. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: CoreEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        // A faulty consumer must not break the agent loop that emitted the event.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
