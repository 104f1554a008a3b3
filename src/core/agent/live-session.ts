// The in-memory state of a session while the engine holds it: what the agent loop needs
// to run one turn. Persistent state lives in the store; this is derived from it.
import type { EventPayloads, EventType } from '../events.js';
import type { Message } from '../messages.js';
import type { PermissionGate } from '../permission/gate.js';
import type { Tool, TodoAccess } from '../tools/types.js';

export interface LiveSession {
  readonly id: string;
  readonly agentName: string;
  /** `provider/model`. */
  model: string;
  readonly cwd: string;
  readonly depth: number;
  /** Session ids from the root down to this one. */
  readonly path: readonly string[];
  readonly systemPrompt: string;
  readonly tools: readonly Tool[];
  readonly gate: PermissionGate;
  readonly todos: TodoAccess;
  /** Model requests allowed per turn; undefined = no cap. */
  maxTurns: number | undefined;
  /** Loaded lazily from the store, then kept in step with it. */
  history: Message[];
  /** Aborts the turn in flight; replaced at the start of each turn. */
  controller: AbortController;
  emit<K extends EventType>(type: K, payload: EventPayloads[K]): void;
}
