// The core's event stream (DESIGN §6, docs/events.md). Every consumer — the Ink UI, the `run`
// printers, tests — sees exactly these objects, children's events included, in emission order.
// The shapes are defined once, as zod schemas, in ./events/schema.ts; the types here derive
// from them (type-only imports: the schemas are not loaded at run time).

import type * as z from 'zod';
import { EVENT_TYPES } from './events/protocol.js';
import type {
  CoreEventSchema,
  DiffStatSchema,
  EventEnvelopeSchema,
  FileChangeSchema,
  ImageRefSchema,
  MergeOutcomeSchema,
  PermissionReplySchema,
  ProtocolLineSchema,
  SessionStatusSchema,
  TaskOutcomeSchema,
  TaskProgressSchema,
  TaskStateSchema,
} from './events/schema.js';

export { EVENT_PROTOCOL_VERSION, EVENT_TYPES, EVENTS_SCHEMA_ID } from './events/protocol.js';

export type SessionStatus = z.infer<typeof SessionStatusSchema>;
export type PermissionReply = z.infer<typeof PermissionReplySchema>;
export type TaskState = z.infer<typeof TaskStateSchema>;
export type TaskProgress = z.infer<typeof TaskProgressSchema>;
export type TaskOutcome = z.infer<typeof TaskOutcomeSchema>;
export type FileChange = z.infer<typeof FileChangeSchema>;
export type TaskMerge = z.infer<typeof MergeOutcomeSchema>;
/** Who sent a background result (the `result.arrived` event without its envelope). */
export type ResultArrival = EventPayloads['result.arrived'];
export type ImageRef = z.infer<typeof ImageRefSchema>;
export type DiffStat = z.infer<typeof DiffStatSchema>;
export type ProtocolLine = z.infer<typeof ProtocolLineSchema>;

/** Every core event, as the schema defines it. */
export type CoreEvent = z.infer<typeof CoreEventSchema>;
export type EventType = CoreEvent['type'];
export type EventOf<K extends EventType> = Extract<CoreEvent, { type: K }>;

/** The fields every event carries besides its type. */
export type EventBase = z.infer<typeof EventEnvelopeSchema>;

/** EVENT_TYPES and the schema name the same types: a type added to one only fails to compile. */
const everyTypeListed: Record<Exclude<EventType, (typeof EVENT_TYPES)[number]>, never> = {};
const onlySchemaTypes: readonly EventType[] = EVENT_TYPES;
void everyTypeListed;
void onlySchemaTypes;

/** Omit that keeps a union a union (a plain Omit would merge its members). */
type PayloadOf<E> = E extends unknown ? Omit<E, 'type' | keyof EventBase> : never;

/** What an emitter gives for each event type; the envelope is added on emission. */
export type EventPayloads = { [K in EventType]: PayloadOf<EventOf<K>> };

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * Tells TypeScript that an event assembled from a type and that type's payload is a
 * CoreEvent. The payload was checked against EventPayloads[type] at compile time; what the
 * compiler cannot follow is the correlation between a generic type and its payload, so the
 * one thing left to check is that the type tag is a known one.
 */
function isAssembledEvent(event: { type: string }): event is CoreEvent {
  return KNOWN_TYPES.has(event.type);
}

/** Builds an event from its type, envelope and payload. */
export function makeEvent<K extends EventType>(type: K, base: EventBase, payload: EventPayloads[K]): CoreEvent {
  const event = { type, ...base, ...payload };
  if (!isAssembledEvent(event)) throw new Error(`Unknown event type "${type}".`);
  return event;
}

/** `tool.progress` of a `task` call: its metadata is a TaskProgress (the schema guarantees it). */
export function isTaskProgress(event: EventOf<'tool.progress'>): event is Extract<EventOf<'tool.progress'>, { tool: 'task' }> {
  return event.tool === 'task';
}

/** `tool.completed` of a `task` call: its metadata, when present, is a TaskOutcome. */
export function isTaskCompletion(event: EventOf<'tool.completed'>): event is Extract<EventOf<'tool.completed'>, { tool: 'task' }> {
  return event.tool === 'task';
}

/** `tool.completed` of an `edit` or `write` call: its metadata, when present, is a FileChange. */
export function isFileChange(event: EventOf<'tool.completed'>): event is Extract<EventOf<'tool.completed'>, { tool: 'edit' | 'write' }> {
  return event.tool === 'edit' || event.tool === 'write';
}

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
