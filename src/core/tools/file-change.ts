// The one path by which write and edit change a file (DESIGN §17). `loadForChange` reads the
// file a change will be computed from and refuses it unless this session has seen its current
// content (read it, or wrote it itself); `applyChange` shows the user a unified diff under the
// `edit` permission and only then, holding the file's lock, checks again that the file is
// still exactly what the change was computed from (the user may take a minute to answer, and
// another agent, the user or a formatter may change it meanwhile) before replacing it
// atomically and remembering the new content as seen. Nothing touches the disk before the ask
// resolves, and a change is never applied to content the model did not see. A write to one of
// the program's control files (`.git/config`, `.opencoderc.json`…) is always asked, whatever
// the `edit` rules say (permission/control-files.ts).
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { controlFileAt, controlFileGuard } from '../permission/control-files.js';
import { ChangedOnDiskError, replaceFile, type Expectation } from '../workspace/atomic-write.js';
import { isCurrent, sha256 } from '../workspace/file-views.js';
import { withPathLock } from '../workspace/path-lock.js';
import { displayPath, realTarget } from './paths.js';
import { readRegularFile } from './regular-file.js';
import { ToolError, type ToolContext } from './types.js';

/** A file as a change sees it: where it really is, and its content (undefined: it does not exist). */
export interface ChangeBase {
  /** The real path, symlinks followed: what is locked, checked and replaced. */
  target: string;
  /** As shown to the model and the user. */
  shown: string;
  bytes: Buffer | undefined;
  text: string | undefined;
}

/**
 * Reads `file` for a change. A FIFO, socket or device rejects with NotRegularFileError; an
 * existing file this session has not read or written, or that changed since it last did,
 * rejects with a ToolError telling the model to read it again.
 */
export async function loadForChange(ctx: ToolContext, file: string): Promise<ChangeBase> {
  const shown = displayPath(ctx.cwd, file);
  const target = await realTarget(file);
  const bytes = await readBytesIfExists(target, shown);
  if (bytes === undefined) return { target, shown, bytes, text: undefined };
  const view = ctx.fileViews.recall(target);
  if (!view) throw new ToolError(notReadMessage(shown));
  const stats = await stat(target);
  if (!isCurrent(view, { stats, bytes })) throw new ToolError(staleMessage(shown));
  return { target, shown, bytes, text: bytes.toString('utf8') };
}

export function countLines(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

export async function applyChange(ctx: ToolContext, base: ChangeBase, after: string): Promise<{ diff: string; shown: string }> {
  const { shown, target } = base;
  const diff = createTwoFilesPatch(shown, shown, base.text ?? '', after);
  const control = await controlFileAt(target, ctx.cwd);
  await ctx.ask({ permission: 'edit', patterns: [shown], subject: diff, file: shown, ...controlFileGuard(control ? [control] : []) });
  ctx.signal.throwIfAborted();
  await mkdir(path.dirname(target), { recursive: true });
  const content = Buffer.from(after, 'utf8');
  await withPathLock(target, async () => {
    const now = await readBytesIfExists(target, shown);
    if (base.bytes === undefined && now !== undefined) throw new ToolError(createdMessage(shown));
    if (base.bytes !== undefined && (now === undefined || !now.equals(base.bytes))) throw new ToolError(staleMessage(shown));
    ctx.signal.throwIfAborted();
    const expected: Expectation = base.bytes === undefined ? { kind: 'absent' } : { kind: 'content', sha256: sha256(base.bytes) };
    const written = await replaceFile(target, content, expected, shown).catch((err: unknown) => {
      // Another process changed the file between the check above and the replace.
      if (err instanceof ChangedOnDiskError) throw new ToolError(err.found === 'created' ? createdMessage(shown) : staleMessage(shown));
      throw err;
    });
    // What this session wrote it has seen: a file it created or changed counts as read.
    ctx.fileViews.remember(target, { size: written.size, mtimeMs: written.mtimeMs, sha256: sha256(content) });
    ctx.changes?.wrote(target);
  });
  return { diff, shown };
}

async function readBytesIfExists(file: string, shown: string): Promise<Buffer | undefined> {
  try {
    return await readRegularFile(file, shown);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function notReadMessage(shown: string): string {
  return `${shown} has not been read in this session yet: read it first with the read tool, then make the change.`;
}

function staleMessage(shown: string): string {
  return `${shown} has changed since you last read it (another agent, the user or a command modified it): read it again, then redo the change against its current content.`;
}

function createdMessage(shown: string): string {
  return `${shown} was created by someone else while this change was waiting: read it, then redo the change against its content.`;
}
