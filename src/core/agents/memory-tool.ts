// The `memory` tool: an agent with `memory:` reads, writes and lists the markdown files of
// its own memory folder (agents/memory.ts) without asking. It reaches nothing else: every
// path is checked there, and the folder is fixed when the session opens. A `memory: deny`
// rule or `disallowedTools: memory` takes the tool away like any other.
import { realpathSync } from 'node:fs';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { defineTool, ToolError, type Tool } from '../tools/types.js';
import { listMemoryFiles, MEMORY_FILE_MAX_BYTES, MEMORY_INDEX, MemoryError, readMemoryFile, writeMemoryFile } from './memory.js';

export const MEMORY_TOOL = 'memory';

const parameters = lazySchema(() =>
  z.object({
    action: z.enum(['read', 'write', 'list']).describe('read a file, write (replace) a file, or list the files.'),
    path: z.string().optional().describe(`A markdown file of the memory folder, relative to it (${MEMORY_INDEX}, topics/api.md); not for list.`),
    content: z.string().optional().describe(`For write: the whole new content of the file (at most ${MEMORY_FILE_MAX_BYTES} bytes).`),
  }),
);

/** `projectFiles`: the folder is inside the project, so writes are reported as the session's changes (checkpoints, undo). */
export function createMemoryTool(dir: string, projectFiles: boolean): Tool<typeof parameters> {
  return defineTool({
    name: MEMORY_TOOL,
    description: `Reads and writes your own memory folder (${dir}): markdown files you keep across sessions. ${MEMORY_INDEX} is your index and is shown in your instructions at the start of each session. Use action "list" to see the files, "read" with a path to read one, "write" with a path and content to replace or create one. It never asks the user.`,
    parameters,
    readOnly: false,
    fileChanges: projectFiles ? 'reported' : 'none',
    async execute(args, ctx) {
      try {
        if (args.action === 'list') {
          const files = listMemoryFiles(dir);
          return { output: files.length > 0 ? files.join('\n') : 'The memory folder is empty.' };
        }
        if (!args.path) throw new ToolError(`action "${args.action}" needs a path, such as ${MEMORY_INDEX}.`);
        if (args.action === 'read') return { output: readMemoryFile(dir, args.path) };
        if (args.content === undefined) throw new ToolError('action "write" needs the content to write.');
        const file = writeMemoryFile(dir, args.path, args.content);
        if (projectFiles) ctx.changes?.wrote(realpathSync(file));
        return { output: `Wrote ${args.path} in the memory folder (${Buffer.byteLength(args.content)} bytes).` };
      } catch (err) {
        if (err instanceof MemoryError) throw new ToolError(err.message);
        throw err;
      }
    },
  });
}
