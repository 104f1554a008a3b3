// `read`: a file's lines numbered like `cat -n`, so `edit` can quote them exactly. Large
// files are streamed and only the requested window is kept; binaries are refused rather
// than dumped into the context.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { hasBinaryExtension, sniffBinary } from './binary.js';
import { displayPath, resolveForTool } from './paths.js';
import { defineTool, ToolError } from './types.js';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
export const MAX_READ_BYTES = 250 * 1024;

const parameters = z.object({
  file_path: z.string().describe('Path of the file to read, absolute or relative to the working directory.'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based line number to start reading from. Only needed for files too long to read at once.'),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Maximum number of lines to return (default ${DEFAULT_READ_LIMIT}).`),
});

export const readTool = defineTool({
  name: 'read',
  description: `Read a text file from the local filesystem.

- file_path may be absolute or relative to the working directory.
- Returns up to ${DEFAULT_READ_LIMIT} lines from the start of the file by default. For long files, pass offset (1-based line number) and limit to read a specific window; the output tells you when more lines remain.
- Each line is prefixed with its line number and a tab (like \`cat -n\`). The prefix is not part of the file: never include it in old_string when editing.
- Lines longer than ${MAX_LINE_CHARS} characters are truncated.
- Binary files (images, archives, executables...) are refused. Directories are refused too: use the list tool for them.
- Reading several files you expect to need in one message (parallel calls) is encouraged.
- Always read a file before editing it so your edits match its current content.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const file = await resolveForTool(ctx, args.file_path);
    const shown = displayPath(ctx.cwd, file);
    let info;
    try {
      info = await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolError(await notFoundMessage(ctx.cwd, file, shown));
      throw err;
    }
    if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file. Use the list tool to see its contents.`);
    if (hasBinaryExtension(file) || (await sniffBinary(file))) {
      throw new ToolError(`${shown} is a binary file (${path.extname(file) || 'no extension'}); it cannot be read as text.`);
    }
    if (info.size === 0) return { output: `(${shown} is empty)`, metadata: { lines: 0 } };

    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LIMIT;
    const out: string[] = [];
    let bytes = 0;
    let lineNo = 0;
    let stoppedForSize = false;
    let more = false;
    const stream = createReadStream(file, { encoding: 'utf8' });
    const lines = createInterface({ input: stream, crlfDelay: Infinity });
    try {
      for await (const raw of lines) {
        ctx.signal.throwIfAborted();
        lineNo++;
        if (lineNo < offset) continue;
        if (out.length >= limit) {
          more = true;
          break;
        }
        const text = raw.length > MAX_LINE_CHARS ? `${raw.slice(0, MAX_LINE_CHARS)}... [line truncated]` : raw;
        const formatted = `${String(lineNo).padStart(6)}\t${text}`;
        if (bytes + formatted.length + 1 > MAX_READ_BYTES && out.length > 0) {
          stoppedForSize = true;
          more = true;
          break;
        }
        out.push(formatted);
        bytes += formatted.length + 1;
      }
    } finally {
      lines.close();
      stream.destroy();
    }

    if (out.length === 0) {
      throw new ToolError(`${shown} has ${lineNo} line${lineNo === 1 ? '' : 's'}; offset ${offset} is past the end of the file.`);
    }
    const first = offset;
    const last = offset + out.length - 1;
    let output = out.join('\n');
    if (more) {
      const why = stoppedForSize ? `output reached the ${MAX_READ_BYTES / 1024} KB limit` : `limit of ${limit} lines reached`;
      output += `\n\n(Showing lines ${first}-${last}; ${why}. The file has more lines: read again with offset=${last + 1} to continue.)`;
    }
    return { output, metadata: { path: shown, firstLine: first, lastLine: last, truncated: more } };
  },
});

async function notFoundMessage(cwd: string, file: string, shown: string): Promise<string> {
  const dir = path.dirname(file);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return `File not found: ${shown} (its directory does not exist either).`;
  }
  const base = path.basename(file).toLowerCase();
  const stem = base.replace(/\.[^.]*$/, '');
  const similar = names
    .filter((name) => {
      const lower = name.toLowerCase();
      const otherStem = lower.replace(/\.[^.]*$/, '');
      return (
        lower.includes(stem) ||
        (otherStem.length > 2 && base.includes(otherStem)) ||
        editDistance(lower, base) <= 2
      );
    })
    .slice(0, 5)
    .map((name) => displayPath(cwd, path.join(dir, name)));
  if (similar.length === 0) return `File not found: ${shown}.`;
  return `File not found: ${shown}. Did you mean one of these?\n${similar.join('\n')}`;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
