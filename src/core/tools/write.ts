// `write`: whole-file creation or replacement. Parent directories are created; the user
// approves a diff against the current content (empty for a new file).
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { applyChange, countLines, readIfExists } from './file-change.js';
import { displayPath, resolveForTool } from './paths.js';
import { isSpecial, kindOf } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

const parameters = z.object({
  file_path: z.string().describe('Path of the file to write, absolute or relative to the working directory.'),
  content: z.string().describe('The complete new content of the file.'),
});

export const writeTool = defineTool({
  name: 'write',
  description: `Create a file or replace a file's entire content.

- Missing parent directories are created.
- Overwriting replaces everything: read the file first, and prefer the edit tool for changes to part of an existing file, which is cheaper and safer.
- Do not create files (especially documentation or README files) unless the task calls for them.
- The user may be asked to approve the change as a diff.`,
  parameters,
  readOnly: false,
  async execute(args, ctx) {
    const file = await resolveForTool(ctx, args.file_path);
    const existingStat = await stat(file).catch(() => undefined);
    if (existingStat?.isDirectory()) throw new ToolError(`${displayPath(ctx.cwd, file)} is a directory; give a file path.`);
    if (existingStat && isSpecial(existingStat)) {
      throw new ToolError(`${displayPath(ctx.cwd, file)} is ${kindOf(existingStat)}, not a regular file; write only creates or replaces regular files.`);
    }
    const before = await readIfExists(file, displayPath(ctx.cwd, file));
    const { diff, shown } = await applyChange(ctx, file, before ?? '', args.content);
    const lines = countLines(args.content);
    const verb = before === undefined ? 'Created' : 'Overwrote';
    return {
      output: `${verb} ${shown} (${lines} line${lines === 1 ? '' : 's'}).`,
      metadata: { path: shown, created: before === undefined, diff },
    };
  },
});
