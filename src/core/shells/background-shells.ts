// Background commands (`bash` with `run_in_background`, DESIGN §23): the one registry of an
// engine, and each session's view of it.
//
// Contract
// - Ids are `shell_1`, `shell_2`… per session, never reused within it (not even after the
//   session's shells were stopped), and only the session that started a shell can read or
//   kill it: its parent and its children cannot. A sub-agent's shells end with the run that
//   started them, so a parent never needs them; a parent's shells are not its children's
//   business.
// - A shell keeps what it printed since the last read in an OutputCap (bounded: beginning and
//   end, with a count of the bytes and lines dropped between them); `read` returns that and
//   empties it, with whether the shell still runs and how it ended.
// - When the command's shell exits, output may drain briefly; processes it left running
//   (escaped ones included, through the runner) are then stopped, as for a foreground `bash`.
// - `kill` stops the shell and everything it started (SIGTERM, then SIGKILL after a grace)
//   and resolves once it is gone; the model's `kill_shell` and the user's `/shells` share it. `endSession` does that for every running shell of one
//   session and forgets them; `endAll` for every session (the program is quitting).
// - `shell.started` and `shell.exited` go out through the starting session's emitter.
// - A session runs at most MAX_RUNNING_SHELLS at once: `checkRoom` throws a ToolError naming
//   them before another command is started, so a looping model cannot fill the machine with
//   processes (each started one also holds pipes and an output buffer).
import type { EventPayloads, EventType } from '../events.js';
import type { CommandExit, RunningCommand } from '../sandbox/index.js';
import { OutputCap } from '../tools/output-cap.js';
import { ToolError } from '../tools/types.js';
import { ShellTail } from './shell-tail.js';

/** Background commands one session may have running at once: dev servers and watchers are a handful. */
export const MAX_RUNNING_SHELLS = 16;

/** How long output may keep draining after the shell exits before leftovers are stopped. */
const DRAIN_MS = 200;

export type ShellEnd = 'exited' | 'killed' | 'session_ended';

export interface ShellStart {
  command: string;
  description?: string | undefined;
  running: RunningCommand;
}

/** A running shell, for lists (`/shells`). */
export interface ShellSummary {
  sessionId: string;
  shellId: string;
  command: string;
  description?: string | undefined;
  pid: number | undefined;
  /** Milliseconds since the Unix epoch. */
  startedAt: number;
}

/** What `bash_output` and `kill_shell` report. */
export interface ShellReport {
  shellId: string;
  command: string;
  pid: number | undefined;
  /** Printed since the previous read (capped). */
  output: string;
  droppedBytes: number;
  droppedLines: number;
  running: boolean;
  /** How it ended, once it has. */
  end?: { reason: ShellEnd; exit: CommandExit; leftovers: boolean };
  startedAt: number;
}

/** One session's shells, as its tools see them. */
export interface SessionShells {
  /** Throws a ToolError when the session already runs MAX_RUNNING_SHELLS; call before starting the command. */
  checkRoom(): void;
  start(start: ShellStart): ShellSummary;
  /** Throws a ToolError naming the session's shells when the id is not one of them. */
  read(shellId: string): ShellReport;
  /** Stops the shell (if it still runs) and reports it; throws like `read`. */
  kill(shellId: string): Promise<ShellReport>;
}

export type ShellEmitter = <K extends Extract<EventType, 'shell.started' | 'shell.exited'>>(type: K, payload: EventPayloads[K]) => void;

/** What `watch` gives a person following a shell: what it printed last, and whether it still runs. */
export interface ShellWatch {
  /** Its newest output so far (at most a few KB). */
  output: string;
  running: boolean;
  /** Stops handing chunks to the listener. */
  stop(): void;
}

class Shell {
  readonly cap = new OutputCap();
  /** For `/shells`: the newest output, which the model's reads leave alone. */
  readonly tail = new ShellTail();
  end: ShellReport['end'];
  /** Why it is being stopped, when this program stops it. */
  stopReason: Exclude<ShellEnd, 'exited'> | undefined;
  /** Resolves once the shell ended and everything it started was stopped. */
  readonly done: Promise<void>;

  constructor(
    readonly summary: ShellSummary,
    readonly running: RunningCommand,
    emit: ShellEmitter,
  ) {
    const output = running.output;
    const drained = new Promise<void>((resolve) => {
      if (!output) return resolve();
      output.on('data', (chunk: Buffer | string) => {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        this.cap.push(bytes);
        this.tail.push(bytes);
      });
      output.once('end', () => resolve());
      output.once('close', () => resolve());
      output.once('error', () => resolve());
    });
    this.done = running.exited.then(async (exit) => {
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
      // What the command left running (a job still holding the pipe) goes with it.
      const leftovers = this.stopReason === undefined && running.alive();
      await running.stop();
      output?.destroy();
      running.release();
      const reason = this.stopReason ?? 'exited';
      this.end = { reason, exit, leftovers };
      emit('shell.exited', {
        shell_id: summary.shellId,
        command: summary.command,
        pid: summary.pid ?? null,
        exit_code: exit.exitCode,
        signal: exit.signal,
        reason,
      });
    });
  }

  stop(reason: Exclude<ShellEnd, 'exited'>): Promise<void> {
    if (this.end) return this.done;
    this.stopReason ??= reason;
    void this.running.stop();
    return this.done;
  }

  report(): ShellReport {
    const { text, droppedBytes, droppedLines } = this.cap.take();
    return {
      shellId: this.summary.shellId,
      command: this.summary.command,
      pid: this.summary.pid,
      output: text,
      droppedBytes,
      droppedLines,
      running: this.end === undefined,
      ...(this.end ? { end: this.end } : {}),
      startedAt: this.summary.startedAt,
    };
  }
}

export class BackgroundShells {
  private readonly sessions = new Map<string, Map<string, Shell>>();
  /** The last number given per session, kept after its shells are forgotten so ids are never reused. */
  private readonly counters = new Map<string, number>();
  /** Sessions whose shells are being stopped. */
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The view of one session; `emit` announces its shells' start and end. */
  forSession(sessionId: string, emit: ShellEmitter): SessionShells {
    return {
      checkRoom: () => this.checkRoom(sessionId),
      start: (start) => this.start(sessionId, start, emit),
      read: (shellId) => this.find(sessionId, shellId).report(),
      kill: (shellId) => this.kill(sessionId, shellId),
    };
  }

  /**
   * Stops one shell of a session and everything it started, and reports it: what `kill_shell`
   * does, and `/shells` for the user. Throws a ToolError naming the session's shells for an unknown id.
   */
  async kill(sessionId: string, shellId: string): Promise<ShellReport> {
    const shell = this.find(sessionId, shellId);
    await shell.stop('killed');
    return shell.report();
  }

  /**
   * Follows one shell's output for a person (`/shells`, Enter): its newest output now, then
   * each chunk as it arrives, without taking anything from what `bash_output` returns. Throws
   * a ToolError naming the session's shells for an unknown id.
   */
  watch(sessionId: string, shellId: string, listener: (text: string) => void): ShellWatch {
    const shell = this.find(sessionId, shellId);
    return { output: shell.tail.text(), running: shell.end === undefined, stop: shell.tail.watch(listener) };
  }

  /** Every shell still running, oldest first. */
  running(): ShellSummary[] {
    const all = [...this.sessions.values()].flatMap((shells) => [...shells.values()]);
    return all
      .filter((shell) => !shell.end)
      .map((shell) => shell.summary)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Stops every shell of a session and forgets them; resolves once they are gone. */
  async endSession(sessionId: string): Promise<void> {
    const shells = this.sessions.get(sessionId);
    if (!shells) return;
    this.sessions.delete(sessionId);
    const ending = Promise.all([...shells.values()].map((shell) => shell.stop('session_ended'))).then(() => {});
    this.ending.add(ending);
    await ending.finally(() => this.ending.delete(ending));
  }

  /** Stops every shell of every session (the program is quitting); resolves once all are gone, those already being stopped included. */
  async endAll(): Promise<void> {
    await Promise.all([...[...this.sessions.keys()].map((id) => this.endSession(id)), ...this.ending]);
  }

  private checkRoom(sessionId: string): void {
    const running = [...(this.sessions.get(sessionId)?.values() ?? [])].filter((shell) => !shell.end);
    if (running.length < MAX_RUNNING_SHELLS) return;
    const ids = running.map((shell) => shell.summary.shellId).join(', ');
    throw new ToolError(
      `${MAX_RUNNING_SHELLS} background commands of this session are already running (${ids}), the most at once. Stop one you no longer need with kill_shell, or run this command without run_in_background.`,
    );
  }

  private start(sessionId: string, start: ShellStart, emit: ShellEmitter): ShellSummary {
    const n = (this.counters.get(sessionId) ?? 0) + 1;
    this.counters.set(sessionId, n);
    const summary: ShellSummary = {
      sessionId,
      shellId: `shell_${n}`,
      command: start.command,
      ...(start.description ? { description: start.description } : {}),
      pid: start.running.pid,
      startedAt: this.now(),
    };
    let shells = this.sessions.get(sessionId);
    if (!shells) {
      shells = new Map();
      this.sessions.set(sessionId, shells);
    }
    shells.set(summary.shellId, new Shell(summary, start.running, emit));
    // Announced once listed, so a listener that asks for the running shells sees it.
    emit('shell.started', {
      shell_id: summary.shellId,
      command: summary.command,
      ...(summary.description ? { description: summary.description } : {}),
      pid: summary.pid ?? null,
    });
    return summary;
  }

  private find(sessionId: string, shellId: string): Shell {
    const shells = this.sessions.get(sessionId);
    const shell = shells?.get(shellId.trim());
    if (shell) return shell;
    const known = [...(shells?.values() ?? [])].map((s) => `${s.summary.shellId} (${s.end ? 'ended' : 'running'})`);
    const listing = known.length ? `Its shells: ${known.join(', ')}.` : 'It has started none (or they ended with an earlier run of this sub-agent).';
    throw new ToolError(`No background shell "${shellId}" in this session. ${listing}`);
  }
}
