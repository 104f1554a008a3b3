// `edit`: exact string replacement. It refuses to guess: the text must occur exactly once
// unless replace_all is set, so a model working from a stale or misremembered view fails
// loudly instead of changing the wrong place; and the file must have been read by this
// session and be unchanged since (file-change.ts). CRLF files accept LF-only old_string,
// since models almost always write \n.
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { applyChange, loadForChange } from './file-change.js';
import { displayPath, resolveForTool } from './paths.js';
import { isSpecial, kindOf } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

const parameters = lazySchema(() =>
  z.object({
    file_path: z.string().describe('Path of the file to change, absolute or relative to the working directory.'),
    old_string: z
      .string()
      .describe(
        'The exact text to replace, including whitespace and indentation, without the line-number prefix that read shows. Empty only to create a new file.',
      ),
    new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence of old_string instead of requiring exactly one (default false). Useful for renames.'),
  }),
);

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count++;
  return count;
}

export const editTool = defineTool({
  name: 'edit',
  description: `Replace exact text in a file.

- Read the file first with the read tool: an existing file that you have not read in this session, or that changed since you last read or wrote it (another agent, the user or a command may change it), is refused, and you must read it again. old_string must match the file's current content exactly, including indentation. Do not include the line-number prefix shown by read.
- The edit fails if old_string is not found, or if it occurs more than once and replace_all is not set: then add surrounding lines to old_string to make it unique, or set replace_all to change every occurrence (e.g. renaming a variable).
- Keep old_string as short as possible while still unique.
- To create a new file, use an empty old_string with the full content as new_string (or use write).
- The user may be asked to approve the change as a diff.`,
  parameters,
  readOnly: false,
  fileChanges: 'reported',
  async execute(args, ctx) {
    const file = await resolveForTool(ctx, args.file_path);
    const shown = displayPath(ctx.cwd, file);
    if (args.old_string === args.new_string) {
      throw new ToolError('old_string and new_string are identical; there is nothing to change.');
    }
    const existing = await stat(file).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`${shown} is a directory; give a file path.`);
    if (existing && isSpecial(existing)) {
      throw new ToolError(`${shown} is ${kindOf(existing)}, not a regular file; edit changes only regular files.`);
    }
    const base = await loadForChange(ctx, file);
    const before = base.text;

    if (before === undefined) {
      if (args.old_string !== '') {
        throw new ToolError(`File not found: ${shown}. To create a file, use write or an empty old_string.`);
      }
      const { diff } = await applyChange(ctx, base, args.new_string);
      return { output: `Created ${shown}.`, metadata: { path: shown, created: true, diff } };
    }
    if (args.old_string === '') {
      if (before !== '') {
        throw new ToolError(
          `${shown} already exists and is not empty; old_string must be the text to replace. Use write to replace the whole file.`,
        );
      }
      const { diff } = await applyChange(ctx, base, args.new_string);
      return { output: `Wrote ${shown}.`, metadata: { path: shown, diff } };
    }

    let oldText = args.old_string;
    let newText = args.new_string;
    let count = countOccurrences(before, oldText);
    if (before.includes('\r\n') && !oldText.includes('\r') && !newText.includes('\r')) {
      // The model wrote \n for a CRLF file: match with CRLF and keep the file's line endings.
      const crlfOld = oldText.replace(/\n/g, '\r\n');
      const crlfCount = crlfOld === oldText ? count : countOccurrences(before, crlfOld);
      if (crlfCount > 0 && (crlfOld === oldText || count === 0)) {
        oldText = crlfOld;
        newText = newText.replace(/\n/g, '\r\n');
        count = crlfCount;
      }
    }
    if (count === 0) {
      throw new ToolError(
        `old_string was not found in ${shown}. It must match the file exactly, including whitespace and indentation; read the file again and copy the text from it.`,
      );
    }
    if (count > 1 && !args.replace_all) {
      throw new ToolError(
        `old_string was found ${count} times in ${shown}; add more surrounding context to make it unique, or set replace_all to replace every occurrence.`,
      );
    }
    let after: string;
    if (args.replace_all) {
      after = before.split(oldText).join(newText);
    } else {
      const at = before.indexOf(oldText);
      after = before.slice(0, at) + newText + before.slice(at + oldText.length);
    }
    const { diff } = await applyChange(ctx, base, after);
    const replaced = args.replace_all ? count : 1;
    return {
      output: `Edited ${shown}: replaced ${replaced} occurrence${replaced === 1 ? '' : 's'}.`,
      metadata: { path: shown, replacements: replaced, diff },
    };
  },
});
