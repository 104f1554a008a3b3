// `opencode-ink undo`, `redo`, `sessions revert <id>` and `sessions diff <id>` (DESIGN §2, §18):
// thin front ends over the engine's checkpoint API. Each prints one summary line (the diff:
// the diff itself); a restore that would overwrite later changes fails with exit code 1,
// naming the files, and changes nothing.
import { Engine, projectParts, type RevertOutcome } from '../../core/engine.js';
import { ConfigError } from '../../core/errors.js';
import { terminalSafe } from '../../core/text/terminal-safe.js';
import type { OpenedProject } from '../../core/project-context.js';
import { sessionIdFrom } from '../../core/pick-session.js';

export interface UndoIo {
  stderr: { write(text: string): unknown };
}

function engineFor(ctx: OpenedProject, io: UndoIo): Engine {
  return new Engine({ ...projectParts(ctx), interactive: false, onWarning: (line) => io.stderr.write(`${terminalSafe(line)}\n`) });
}

/** The root session named by `-s`, or the most recent one in this directory. */
function rootSession(ctx: OpenedProject, engine: Engine, session: string | undefined): string {
  if (session !== undefined) {
    const id = sessionIdFrom(ctx.store, session, 'opencode-ink sessions');
    const row = ctx.store.getSession(id);
    if (row?.parent_id) throw new ConfigError(`Session ${id} is a sub-agent's; undo and redo work on root sessions (use opencode-ink sessions revert ${id} for a sub-agent).`);
    return id;
  }
  const recent = engine.mostRecentRoot();
  if (!recent) throw new ConfigError('No session in this directory to undo (see opencode-ink sessions, and pass -s <id>).');
  return recent.id;
}

export async function undoCommand(ctx: OpenedProject, action: 'undo' | 'redo', opts: { session?: string }, io: UndoIo): Promise<string> {
  const engine = engineFor(ctx, io);
  try {
    const id = rootSession(ctx, engine, opts.session);
    const outcome = action === 'undo' ? await engine.undo(id) : await engine.redo(id);
    const verb = action === 'undo' ? 'Undid' : 'Redid';
    return terminalSafe(`${verb} "${preview(outcome.prompt?.text ?? '')}" in session ${id}: ${filesSentence(outcome)}`);
  } finally {
    await engine.close();
  }
}

export async function sessionsRevert(ctx: OpenedProject, idOrPrefix: string, io: UndoIo): Promise<string> {
  const engine = engineFor(ctx, io);
  try {
    const id = sessionIdFrom(ctx.store, idOrPrefix, 'opencode-ink sessions --all');
    const outcome = await engine.revertSession(id);
    return terminalSafe(`Reverted session ${id}: ${filesSentence(outcome)}${leftAloneSentence(ctx, outcome)}`);
  } finally {
    await engine.close();
  }
}

export async function sessionsDiff(ctx: OpenedProject, idOrPrefix: string, io: UndoIo): Promise<string> {
  const engine = engineFor(ctx, io);
  try {
    const id = sessionIdFrom(ctx.store, idOrPrefix, 'opencode-ink sessions --all');
    const { diff, left_alone } = await engine.sessionDiffReport(id);
    // Said beside the diff, not in it: the output stays a patch `git apply` can read.
    for (const file of left_alone) {
      const why = file.also_changed_by.length
        ? `${whoElse(ctx, file.also_changed_by)} changed it too while this session ran`
        : 'something else changed it too between this session\'s prompts';
      io.stderr.write(`${terminalSafe(`${file.path} is left out: ${why}.`)}\n`);
    }
    return terminalSafe(diff);
  } finally {
    await engine.close();
  }
}

function filesSentence(outcome: RevertOutcome): string {
  const { files } = outcome;
  if (files.length === 0) return 'no file needed changing.';
  const shown = files.slice(0, 10).join(', ');
  return `${files.length === 1 ? '1 file' : `${files.length} files`} restored (${shown}${files.length > 10 ? ', …' : ''}).`;
}

/** Other sessions, as `agent (id)`. */
function whoElse(ctx: OpenedProject, ids: readonly string[]): string {
  return ids
    .map((id) => {
      const row = ctx.store.getSession(id);
      return row ? `${row.agent} (${id})` : id;
    })
    .join(' and ');
}

/** Files another session changed too while this one ran: left as they are, each with who. */
function leftAloneSentence(ctx: OpenedProject, outcome: RevertOutcome): string {
  const files = outcome.left_alone ?? [];
  if (files.length === 0) return '';
  const named = files.slice(0, 10).map((f) => (f.also_changed_by.length ? `${f.path}, also changed by ${whoElse(ctx, f.also_changed_by)}` : `${f.path}, also changed between its prompts`));
  return `\nLeft as ${files.length === 1 ? 'it is' : 'they are'} ${files.some((f) => f.also_changed_by.length === 0) ? '(changed by something else too)' : '(changed by another session at the same time)'}: ${named.join('; ')}${files.length > 10 ? '; …' : ''}.`;
}

function preview(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
