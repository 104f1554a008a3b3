// The one path by which write and edit change a file: show the user a unified diff under
// the `edit` permission, then write. Nothing touches the disk before the ask resolves. A
// write to one of the program's control files (`.git/config`, `.opencoderc.json`…) is always
// asked, whatever the `edit` rules say (permission/control-files.ts).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { controlFileAt, controlFileGuard } from '../permission/control-files.js';
import { displayPath } from './paths.js';
import { readRegularFile, writeRegularFile } from './regular-file.js';
import type { ToolContext } from './types.js';

/**
 * Current content, or undefined when the file does not exist. A FIFO, socket or device
 * rejects with NotRegularFileError (naming `shown`) instead of being opened.
 */
export async function readIfExists(file: string, shown: string = file): Promise<string | undefined> {
  try {
    return (await readRegularFile(file, shown)).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export function countLines(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

export async function applyChange(
  ctx: ToolContext,
  file: string,
  before: string,
  after: string,
): Promise<{ diff: string; shown: string }> {
  const shown = displayPath(ctx.cwd, file);
  const diff = createTwoFilesPatch(shown, shown, before, after);
  const control = await controlFileAt(file, ctx.cwd);
  await ctx.ask({ permission: 'edit', patterns: [shown], subject: diff, ...controlFileGuard(control ? [control] : []) });
  ctx.signal.throwIfAborted();
  await mkdir(path.dirname(file), { recursive: true });
  await writeRegularFile(file, after, shown);
  return { diff, shown };
}
