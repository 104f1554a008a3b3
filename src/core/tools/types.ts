// What a tool is and what it may use while running. Tools never talk to the user or the
// store directly: they ask for permission and report progress through the context.

import type * as z from 'zod';
import type { ShellAnalysis } from '../permission/bash-parse.js';
import type { ControlFileWrite } from '../permission/control-files.js';
import type { FileViews } from '../workspace/file-views.js';
import type { CommandSandbox, RemoteCommandRunner } from '../sandbox/index.js';
import type { SessionShells } from '../shells/background-shells.js';
import type { PreparedImage } from '../images/prepare.js';
import type { TeamAccess } from '../team/task-list.js';

export interface PermissionRequest {
  /** Rule key in the `permission` config: `edit`, `bash`, `webfetch`, `external_directory`, or a tool name. */
  permission: string;
  /** What rules are matched against: the command, the path relative to the working directory, the URL. */
  patterns: string[];
  /** Shown to the user: the command, a diff, the URL. */
  subject: string;
  /** The file a write or an edit would change, as shown to the user: how the request is named. */
  file?: string;
  /** Patterns recorded when the user answers "always allow"; defaults to `patterns`. */
  always?: string[];
  /** Why this request goes to the user even when a rule allows it (e.g. a private network address). A deny rule still denies. */
  mustAsk?: string;
  /**
   * The program's control files this request writes (`.git/config`, `.opencoderc.json`…; see
   * permission/control-files.ts). With `mustAsk`, it asks unless an `edit` rule names every one
   * of them exactly (no wildcard) or an earlier "always" answer approved each of them; an
   * "always" answer remembers exactly these files, and `--yes` does not approve it.
   */
  controlFiles?: ControlFileWrite[];
  /** For `bash`: the command line as a shell parser sees it; rules and grants are matched per simple command. */
  shell?: ShellAnalysis;
  /**
   * For `bash`: the command runs inside a working sandbox whose `auto_allow` is on, so an ask
   * that only the built-in default gives becomes allow; rules from the config or an agent still apply.
   */
  sandboxAutoAllow?: boolean;
  /** A sandbox is configured but this command would run outside it: why. Shown with the ask. */
  outsideSandbox?: string;
  /**
   * Only a person may approve this (leaving the sandbox): rules that allow, "always allow"
   * grants and `--yes` do not; where nobody can answer it is refused. A deny rule still denies.
   */
  needsPerson?: string;
}

export class PermissionDeniedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionDeniedError';
  }
}

export interface Todo {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
}

export interface TodoAccess {
  get(): Todo[];
  set(todos: Todo[]): void;
}

/** How a question to the user ended; the asking tool turns each into words for the model. */
export type QuestionOutcome =
  | { kind: 'answered'; answer: string }
  | { kind: 'declined' }
  | { kind: 'unavailable' }
  | { kind: 'cancelled' };

/**
 * Which project files a session changed (DESIGN §18), so one sub-agent's revert can keep to
 * its own files when others worked in the same tree at the same time.
 */
export interface ChangeRecorder {
  /** A file tool replaced this file (its real path). */
  wrote(realPath: string): void;
  /** Runs a tool that may change files without saying which (a command, an MCP tool), noting the ones it did. */
  watch<T>(run: () => Promise<T>): Promise<T>;
  /** Resolves once the snapshots that must precede a change to the project's files exist (checkpoints, DESIGN §18); never rejects. */
  ready(): Promise<void>;
  /** A change may follow soon (the model began writing such a call): those snapshots start now, without waiting. */
  mayChange(): void;
}

export interface ToolContext {
  sessionId: string;
  /** The session's working directory; relative paths resolve against it. */
  cwd: string;
  agent: string;
  callId: string;
  signal: AbortSignal;
  /** Resolves when allowed; rejects with PermissionDeniedError when denied. */
  ask(request: PermissionRequest): Promise<void>;
  /** Live progress for the UI (`tool.progress` event). */
  progress(metadata: Record<string, unknown>): void;
  todos: TodoAccess;
  /** What this session has read or written of each file: `write` and `edit` refuse files it has not seen as they are now. */
  fileViews: FileViews;
  /** Asks the user, routed through every parent session up to the root. */
  askUser?(question: string, options: string[]): Promise<QuestionOutcome>;
  /** Position of this call among the calls to the same tool in one assistant message. */
  batchIndex?: number;
  /** The call was made for the user (a command or an @mention), not chosen by the model. */
  byUser?: boolean;
  /** Where the session's shell commands run (DESIGN §19); undefined when the sandbox is off. */
  sandbox?: CommandSandbox;
  /** The sub-agent's container (DESIGN §25): its commands run there and never on this machine; the sandbox does not apply. */
  runner?: RemoteCommandRunner;
  /**
   * The main session's container with `runner.for: "all"`, started on its first command: its
   * commands run there and never on this machine (when it cannot start, the command fails).
   */
  runnerOnDemand?: () => Promise<RemoteCommandRunner>;
  /** Variables to add to the environment of commands the tool runs (Claude Code's settings `env`); never credentials. */
  env?: Readonly<Record<string, string>>;
  /** The session's background commands (DESIGN §23); undefined where none can be kept (outside an engine). */
  shells?: SessionShells;
  /** Where a file tool reports the files it replaced; undefined outside an engine. */
  changes?: Pick<ChangeRecorder, 'wrote'>;
  /** The team's shared task list this session works on (DESIGN §24); undefined outside an engine. */
  team?: TeamAccess;
}

export interface ToolResult {
  output: string;
  isError?: boolean;
  metadata?: Record<string, unknown>;
  /** Pictures for the model (DESIGN §22); the tool runner stores them and sends them after `output`. */
  images?: PreparedImage[];
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  /** Read-only tools of one message may run concurrently; others run strictly in order. */
  readOnly: boolean;
  /**
   * How a tool that is not read-only changes project files: `none` (it never does), `reported`
   * (it tells `ToolContext.changes` itself, or through its sub-agents). Left out: it may change
   * files without saying which, so the files are compared before and after it when that matters.
   */
  fileChanges?: 'none' | 'reported';
  /** Calls to this tool in one message start together, after all other calls (sub-agent tasks). */
  runsTogether?: boolean;
  /**
   * Accepts what the user may ask for but the model may not (a `task` for a primary agent
   * from a command); used instead of `parameters` for calls made for the user.
   */
  userParameters?: z.ZodType;
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolResult>;
}

/** Keeps each tool's `args` typed by its own schema while tools are stored together. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}

/** A tool's failure the model should read (missing file, non-unique match...), not a crash. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
