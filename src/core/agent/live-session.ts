// The in-memory state of a session while the engine holds it: what the agent loop needs
// to run one turn. Persistent state lives in the store; this is derived from it.
import type { EventPayloads, EventType } from '../events.js';
import type { Message, TextPart } from '../messages.js';
import type { PermissionGate, PermissionOutcome, PermissionQuestion } from '../permission/gate.js';
import type { CommandSandbox, SandboxSettings } from '../sandbox/index.js';
import type { QuestionOutcome, Tool, TodoAccess } from '../tools/types.js';
import type { FileViews } from '../workspace/file-views.js';
import type { BlobStore } from '../store/blobs.js';

/** Asks the user on behalf of `origin` (the session whose tool asked), possibly many levels down. */
export type QuestionRoute = (origin: LiveSession, question: string, options: string[]) => Promise<QuestionOutcome>;
export type PermissionRoute = (origin: LiveSession, question: PermissionQuestion) => Promise<PermissionOutcome>;

export interface LiveSession {
  readonly id: string;
  readonly agentName: string;
  /** `provider/model`. */
  model: string;
  readonly cwd: string;
  readonly depth: number;
  /** Session ids from the root down to this one. */
  readonly path: readonly string[];
  readonly parent: LiveSession | undefined;
  readonly systemPrompt: string;
  /** Replaced when MCP servers connect or change their tools; read at the start of each turn. */
  tools: readonly Tool[];
  /** Why a tool is missing at this depth, told to a model that calls it anyway. */
  readonly missingToolHints: Readonly<Record<string, string>>;
  readonly gate: PermissionGate;
  /** This session's sandbox settings: its parent's (or the start's), tightened by its agent; children start from these. */
  readonly sandboxSettings: SandboxSettings;
  /** Where its shell commands run; undefined when the sandbox is off. */
  readonly sandbox: CommandSandbox | undefined;
  readonly todos: TodoAccess;
  /** The files this session has seen (its own reads and writes, not its parent's or children's). */
  readonly fileViews: FileViews;
  /** Where the images of its messages are kept, by content hash (DESIGN §22). */
  readonly blobs: BlobStore;
  /** For a root: the broker. For a child: closures its parent gave it, forwarding upward. */
  readonly askUser: QuestionRoute;
  readonly askPermission: PermissionRoute;
  /** Model requests allowed per turn; undefined = no cap. */
  maxTurns: number | undefined;
  /** Loaded lazily from the store, then kept in step with it. */
  history: Message[];
  /** Aborts the turn in flight; replaced at the start of each turn. */
  controller: AbortController;
  /** Results of background tasks that arrived while a turn runs; read before the next model request. */
  inbox: TextPart[];
  emit<K extends EventType>(type: K, payload: EventPayloads[K]): void;
}
