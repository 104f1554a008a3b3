// The in-memory state of a session while the engine holds it: what the agent loop needs
// to run one turn. Persistent state lives in the store; this is derived from it.
import type { Effort } from '../provider/effort.js';
import type { EventPayloads, EventType } from '../events.js';
import type { HookEventName } from '../hooks/config.js';
import type { SessionHooks } from '../hooks/session.js';
import type { Message, TextPart } from '../messages.js';
import type { PermissionGate, PermissionOutcome, PermissionQuestion } from '../permission/gate.js';
import type { RunnerKind } from '../runner/config.js';
import type { CommandSandbox, RemoteCommandRunner, SandboxSettings } from '../sandbox/index.js';
import type { SessionShells } from '../shells/background-shells.js';
import type { ChangeRecorder, QuestionOutcome, Tool, TodoAccess } from '../tools/types.js';
import type { FileViews } from '../workspace/file-views.js';
import type { BlobStore } from '../store/blobs.js';
import type { SessionStore } from '../store/index.js';

/** Asks the user on behalf of `origin` (the session whose tool asked), possibly many levels down. */
export type QuestionRoute = (origin: LiveSession, question: string, options: string[]) => Promise<QuestionOutcome>;
export type PermissionRoute = (origin: LiveSession, question: PermissionQuestion) => Promise<PermissionOutcome>;

/** A message sent to a running session: by the user (its view, ACP, the library) or by its parent's `task`. */
export interface SteeringMessage {
  text: string;
  sender: 'user' | 'parent';
  /** Told once what became of it: delivered at a turn boundary, or dropped and why. */
  settle?: ((fate: SteeringFate) => void) | undefined;
}

/** Why a queued message never reached the model: its session was cancelled, or had already finished its run. */
export type DropReason = 'cancelled' | 'finished';

export type SteeringFate = { delivered: true } | { delivered: false; reason: DropReason };

/**
 * The messages a model request carried (pruned or compacted as sent, images by reference), and
 * where the history stood then: its length and its last message, so a later reader can tell
 * whether the history has only grown since.
 */
export interface SentMessages {
  messages: readonly Message[];
  historyLength: number;
  last: Message | undefined;
}

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
  /** `docker`: its commands run in a container of its own (DESIGN §25), set while it runs as a sub-agent. */
  readonly runnerKind: RunnerKind;
  /** That container while the child runs; its commands never run on this machine then. */
  container?: RemoteCommandRunner | undefined;
  /** A main session's container with `runner.for: "all"`: started (and kept in `container`) on its first command. */
  readonly containerOnDemand?: (() => Promise<RemoteCommandRunner>) | undefined;
  /** Variables added to the environment of the commands its tools run (Claude Code's settings `env`). */
  readonly toolEnv?: Readonly<Record<string, string>>;
  /** Its background commands (DESIGN §23): kept by session id, so a reopened session finds them. */
  readonly shells: SessionShells;
  readonly todos: TodoAccess;
  /** The files this session has seen (its own reads and writes, not its parent's or children's). */
  readonly fileViews: FileViews;
  /** Records which project files its tools change (DESIGN §18); undefined outside an engine. */
  readonly changes?: ChangeRecorder | undefined;
  /** The store holding its team's task list (DESIGN §24); undefined outside an engine. */
  readonly teamStore?: SessionStore | undefined;
  /** Where the images of its messages are kept, by content hash (DESIGN §22). */
  readonly blobs: BlobStore;
  /** For a root: the broker. For a child: closures its parent gave it, forwarding upward. */
  readonly askUser: QuestionRoute;
  readonly askPermission: PermissionRoute;
  /** Model requests allowed per turn; undefined = no cap. */
  maxTurns: number | undefined;
  /** Its agent's `effort`; each request carries it where that request's model takes it (provider/effort.ts). */
  readonly effort?: Effort | undefined;
  /** Loaded lazily from the store, then kept in step with it. */
  history: Message[];
  /** The messages of its last model request, as sent: what a fork repeats (subagents/fork.ts). */
  sent?: SentMessages | undefined;
  /** Aborts the turn in flight; replaced at the start of each turn. */
  controller: AbortController;
  /** Results of background tasks that arrived while a turn runs; read before the next model request. */
  inbox: TextPart[];
  /** Messages sent to the session while it runs (DESIGN §23); delivered with the inbox (./inbox.ts). */
  steering: SteeringMessage[];
  emit<K extends EventType>(type: K, payload: EventPayloads[K]): void;
  /** Claude Code's hooks as this session fires them (DESIGN §20); undefined when none is configured. */
  readonly hooks?: SessionHooks | undefined;
  /** A hook answered `continue: false`: the turn ends after the current step; which hook and why. */
  hookStop?: { event: HookEventName; reason: string } | undefined;
}
