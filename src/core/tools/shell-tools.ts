// `bash_output` and `kill_shell`: the model's handles on its background commands (`bash` with
// `run_in_background`, DESIGN §23). Contract: both take a `shell_id` of the calling session
// (another session's id, or an unknown one, is an error result naming the session's shells);
// `bash_output` returns what the command printed since the previous read — capped like
// `bash` output, with a count of the bytes and lines dropped — then one line saying whether
// it still runs or how it ended; `kill_shell` stops it and every process it started and says
// so. Neither asks for permission: the command was approved when it started.
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { ShellReport } from '../shells/background-shells.js';
import { OUTPUT_HEAD_BYTES, OUTPUT_TAIL_BYTES } from './output-cap.js';
import { defineTool, ToolError, type ToolContext, type ToolResult } from './types.js';

export const BASH_OUTPUT_TOOL = 'bash_output';
export const KILL_SHELL_TOOL = 'kill_shell';

const parameters = lazySchema(() =>
  z.object({
    shell_id: z.string().min(1).describe('The shell_id that bash returned for a command started with run_in_background.'),
  }),
);

function shellsOf(ctx: ToolContext): NonNullable<ToolContext['shells']> {
  if (!ctx.shells) throw new ToolError('Background commands are not available here.');
  return ctx.shells;
}

function ageOf(report: ShellReport): string {
  const seconds = Math.max(0, Math.round((Date.now() - report.startedAt) / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/** The one line saying where the shell stands. */
export function shellState(report: ShellReport): string {
  const id = report.shellId;
  if (!report.end) return `[${id} is still running (pid ${report.pid ?? '?'}, started ${ageOf(report)} ago).]`;
  const { reason, exit, leftovers } = report.end;
  const how =
    exit.startError !== undefined
      ? `could not start: ${exit.startError}`
      : exit.exitCode !== null
        ? `exited with code ${exit.exitCode}`
        : `was ended by signal ${exit.signal ?? 'unknown'}`;
  const why = reason === 'killed' ? ' (stopped by kill_shell)' : reason === 'session_ended' ? ' (stopped when its session ended)' : '';
  const rest = leftovers ? ' Background processes it left running were stopped.' : '';
  return `[${id} ${how}${why}.${rest}]`;
}

function metadataOf(report: ShellReport): Record<string, unknown> {
  return {
    shell_id: report.shellId,
    pid: report.pid,
    running: report.running,
    exitCode: report.end?.exit.exitCode ?? null,
    droppedBytes: report.droppedBytes,
    droppedLines: report.droppedLines,
  };
}

function result(report: ShellReport, emptyText: string): ToolResult {
  const output = report.output.replace(/\s+$/, '');
  return { output: `${output || emptyText}\n\n${shellState(report)}`, metadata: metadataOf(report) };
}

export const bashOutputTool = defineTool({
  name: BASH_OUTPUT_TOOL,
  description: `Read what a background command (started with bash and run_in_background: true) printed since the last read, stdout and stderr together, and whether it is still running or how it ended.

- Each read returns only new output; output beyond ${(OUTPUT_HEAD_BYTES + OUTPUT_TAIL_BYTES) / 1024} KB between two reads keeps its beginning and end, and says how many bytes and lines were dropped.
- It does not wait: read again later for more.`,
  parameters,
  readOnly: true,
  // async: an unknown id becomes a rejected promise (an error result), never a synchronous throw.
  async execute(args, ctx) {
    return result(shellsOf(ctx).read(args.shell_id), '(no new output)');
  },
});

export const killShellTool = defineTool({
  name: KILL_SHELL_TOOL,
  description: 'Stop a background command (started with bash and run_in_background: true) and every process it started. Returns what it printed since the last read.',
  parameters,
  readOnly: false,
  // Stopping a command changes no file itself; what the command changed while it ran is its own matter.
  fileChanges: 'none',
  async execute(args, ctx) {
    const report = await shellsOf(ctx).kill(args.shell_id);
    return result(report, '(no new output)');
  },
});
