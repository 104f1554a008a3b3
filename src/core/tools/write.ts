// `write`: whole-file creation or replacement. Parent directories are created; the user
// approves a diff against the current content (empty for a new file). An existing file must
// have been read by this session and be unchanged since (file-change.ts).
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { applyChange, countLines, loadForChange } from './file-change.js';
import { displayPath, resolveForTool } from './paths.js';
import { isSpecial, kindOf } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

const parameters = lazySchema(() =>
  z.object({
    file_path: z.string().describe('Path of the file to write, absolute or relative to the working directory.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
);

export const writeTool = defineTool({
  name: 'write',
  description: `Create a file or replace a file's entire content.

- Missing parent directories are created.
- Overwriting replaces everything: an existing file must have been read with the read tool in this session first, and is refused if it changed since you last read or wrote it (another agent, the user or a command may change it); read it again then. Prefer the edit tool for changes to part of an existing file, which is cheaper and safer.
- Do not create files (especially documentation or README files) unless the task calls for them.
- The user may be asked to approve the change as a diff.`,
  parameters,
  readOnly: false,
  fileChanges: 'reported',
  async execute(args, ctx) {
    const file = await resolveForTool(ctx, args.file_path);
    const existingStat = await stat(file).catch(() => undefined);
    if (existingStat?.isDirectory()) throw new ToolError(`${displayPath(ctx.cwd, file)} is a directory; give a file path.`);
    if (existingStat && isSpecial(existingStat)) {
      throw new ToolError(`${displayPath(ctx.cwd, file)} is ${kindOf(existingStat)}, not a regular file; write only creates or replaces regular files.`);
    }
    const base = await loadForChange(ctx, file);
    const { diff, shown } = await applyChange(ctx, base, args.content);
    const lines = countLines(args.content);
    const created = base.bytes === undefined;
    return {
      output: `${created ? 'Created' : 'Overwrote'} ${shown} (${lines} line${lines === 1 ? '' : 's'}).`,
      metadata: { path: shown, created, diff },
    };
  },
});
