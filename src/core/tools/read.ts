// `read`: a file's lines numbered like `cat -n`, so `edit` can quote them exactly. The file
// is read through one fixed 64 KB buffer and only the requested window is kept, each line
// cut at MAX_LINE_CHARS while the rest of it is skipped unseen, so memory stays bounded
// whatever the file's size or line length (a 200 MB one-line file costs a few KB). Only
// regular files are opened (regular-file.ts); binaries are refused rather than dumped into
// the context. A successful read is remembered in the session's file views, which `write`
// and `edit` require (workspace/file-views.ts). PNG, JPEG, GIF and WebP files, told by their
// bytes, come back as an image for the model instead (images/prepare.ts, DESIGN §22).
import type { FileHandle } from 'node:fs/promises';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { fingerprintOpenFile } from '../workspace/file-views.js';
import { IMAGE_SNIFF_BYTES, imageFormatOf } from '../images/format.js';
import { describeImage, ImageError, MAX_IMAGE_FILE_BYTES, notAnImageReason, prepareImage } from '../images/prepare.js';
import { hasBinaryExtension, looksBinary } from './binary.js';
import { displayPath, realTarget, resolveForTool } from './paths.js';
import { NotRegularFileError, openRegular } from './regular-file.js';
import { defineTool, ToolError } from './types.js';

export const DEFAULT_READ_LIMIT = 2000;
export const MAX_LINE_CHARS = 2000;
export const MAX_READ_BYTES = 250 * 1024;
/** Size of the one buffer the file is read through. */
export const READ_CHUNK_BYTES = 64 * 1024;
/** Bytes of a line kept before decoding: enough for MAX_LINE_CHARS characters of up to 4 bytes. */
const KEEP_LINE_BYTES = MAX_LINE_CHARS * 4 + 4;
const NEWLINE = 0x0a;

const parameters = lazySchema(() =>
  z.object({
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
  }),
);

export const readTool = defineTool({
  name: 'read',
  description: `Read a text file from the local filesystem.

- file_path may be absolute or relative to the working directory.
- Returns up to ${DEFAULT_READ_LIMIT} lines from the start of the file by default. For long files, pass offset (1-based line number) and limit to read a specific window; the output tells you when more lines remain.
- Each line is prefixed with its line number and a tab (like \`cat -n\`). The prefix is not part of the file: never include it in old_string when editing.
- Lines longer than ${MAX_LINE_CHARS} characters are truncated.
- PNG, JPEG, GIF and WebP images are returned as an image you can see (large ones scaled down). Other binary files (archives, executables, other picture formats...) are refused. Directories are refused too (use the list tool for them), and so are FIFOs, sockets and devices: only regular files are read.
- Reading several files you expect to need in one message (parallel calls) is encouraged.
- Always read a file before editing or overwriting it: write and edit refuse an existing file you have not read in this session, or one that changed since you last read it.`,
  parameters,
  readOnly: true,
  async execute(args, ctx) {
    const file = await resolveForTool(ctx, args.file_path);
    const shown = displayPath(ctx.cwd, file);
    // Reading is allowed by default; the rule is there for denials like Claude Code's `Read(./secrets/**)`.
    await ctx.ask({ permission: 'read', patterns: [shown], subject: `Read ${shown}` });
    let handle: FileHandle;
    try {
      handle = await openRegular(file, shown);
    } catch (err) {
      if (err instanceof NotRegularFileError) {
        if (err.kind === 'a directory') throw new ToolError(`${shown} is a directory, not a file. Use the list tool to see its contents.`);
        throw new ToolError(`${err.message}; only regular files can be read.`);
      }
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolError(await notFoundMessage(ctx.cwd, file, shown));
      throw err;
    }
    try {
      const openedAs = await handle.stat();
      const head = Buffer.alloc(8192);
      const { bytesRead: headBytes } = await handle.read(head, 0, head.length, 0);
      if (headBytes >= IMAGE_SNIFF_BYTES && imageFormatOf(head.subarray(0, headBytes))) {
        const result = await readImage(handle, shown, openedAs.size);
        ctx.fileViews.remember(await realTarget(file), await fingerprintOpenFile(handle, openedAs));
        return result;
      }
      const refused = notAnImageReason(path.basename(shown), head.subarray(0, headBytes));
      if (refused) throw new ToolError(refused);
      if (hasBinaryExtension(file)) throw binaryError(shown, file);
      const window = await readWindow(handle, {
        offset: args.offset ?? 1,
        limit: args.limit ?? DEFAULT_READ_LIMIT,
        signal: ctx.signal,
        isBinary: () => binaryError(shown, file),
      });
      const result = formatWindow(shown, window, args.offset ?? 1, args.limit ?? DEFAULT_READ_LIMIT);
      // Any successful read counts as having seen the file, a window of it included (as in
      // Claude Code): the model knows the file exists and can read more before changing it.
      ctx.fileViews.remember(await realTarget(file), await fingerprintOpenFile(handle, openedAs));
      return result;
    } catch (err) {
      // Opened without blocking, a "regular" file that streams like a pipe (/proc/kmsg)
      // answers EAGAIN instead of waiting forever for data.
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        throw new ToolError(`${shown} has no data to read without waiting (it behaves like a pipe, not a regular file); it cannot be read.`);
      }
      throw err;
    } finally {
      await handle.close();
    }
  },
});

async function readImage(handle: FileHandle, shown: string, size: number) {
  if (size > MAX_IMAGE_FILE_BYTES) {
    throw new ToolError(`${shown} is too large to read as an image (${(size / 1024 / 1024).toFixed(0)} MB; the limit is ${MAX_IMAGE_FILE_BYTES / 1024 / 1024} MB).`);
  }
  const bytes = await handle.readFile();
  try {
    const image = await prepareImage(path.basename(shown), bytes);
    return {
      output: `Image ${shown} (${describeImage(image)}).`,
      images: [image],
      metadata: { path: shown, bytesRead: bytes.length },
    };
  } catch (err) {
    if (err instanceof ImageError) throw new ToolError(err.message);
    throw err;
  }
}

function binaryError(shown: string, file: string): ToolError {
  return new ToolError(`${shown} is a binary file (${path.extname(file) || 'no extension'}); it cannot be read as text.`);
}

export interface ReadWindow {
  /** The window's lines, already numbered and cut. */
  lines: string[];
  /** Lines seen in the file up to where reading stopped. */
  linesSeen: number;
  /** The file goes on after the window. */
  more: boolean;
  /** Stopped because the output reached MAX_READ_BYTES rather than the line limit. */
  stoppedForSize: boolean;
  /** Bytes read from the file: what the read cost, for callers and tests. */
  bytesRead: number;
}

interface WindowOptions {
  offset: number;
  limit: number;
  signal?: AbortSignal;
  /** The error to throw when the first chunk holds a NUL byte. */
  isBinary: () => Error;
}

/**
 * Reads lines `offset`..`offset+limit-1` through one fixed buffer. Lines before the window
 * are only counted; a line inside it keeps at most KEEP_LINE_BYTES and the rest is skipped
 * as it streams past. Reading stops as soon as the window is full and the next line has
 * begun (so "more" is known without reading it), or the output cap is reached.
 */
export async function readWindow(handle: FileHandle, opts: WindowOptions): Promise<ReadWindow> {
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  const out: string[] = [];
  let outBytes = 0;
  let lineNo = 0;
  let kept: Buffer[] = [];
  let keptBytes = 0;
  let overflow = false;
  /** Bytes of the current line seen so far (it exists once this is > 0 or its newline is seen). */
  let lineBytes = 0;
  let position = 0;
  let more = false;
  let stoppedForSize = false;

  /** Ends the current line; false when reading should stop. */
  const finishLine = (): boolean => {
    lineNo++;
    const inWindow = lineNo >= opts.offset;
    if (inWindow) {
      let text = Buffer.concat(kept, keptBytes).toString('utf8');
      if (!overflow && text.endsWith('\r')) text = text.slice(0, -1);
      if (overflow || text.length > MAX_LINE_CHARS) text = `${text.slice(0, MAX_LINE_CHARS)}... [line truncated]`;
      const formatted = `${String(lineNo).padStart(6)}\t${text}`;
      if (outBytes + formatted.length + 1 > MAX_READ_BYTES && out.length > 0) {
        stoppedForSize = true;
        more = true;
        return false;
      }
      out.push(formatted);
      outBytes += formatted.length + 1;
    }
    kept = [];
    keptBytes = 0;
    overflow = false;
    lineBytes = 0;
    return true;
  };

  reading: for (;;) {
    opts.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    if (position === 0 && looksBinary(buffer.subarray(0, Math.min(bytesRead, 8192)))) throw opts.isBinary();
    position += bytesRead;
    let start = 0;
    while (start < bytesRead) {
      // A new line has begun: with the window full, that is all we needed to know.
      if (lineBytes === 0 && out.length >= opts.limit) {
        more = true;
        break reading;
      }
      const newline = buffer.indexOf(NEWLINE, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      const piece = end - start;
      if (lineNo + 1 >= opts.offset && piece > 0) {
        const room = KEEP_LINE_BYTES - keptBytes;
        if (room > 0) {
          const take = Math.min(room, piece);
          kept.push(Buffer.from(buffer.subarray(start, start + take)));
          keptBytes += take;
        }
        if (piece > room) overflow = true;
      }
      lineBytes += piece;
      if (end === bytesRead) break;
      // The newline itself: the line exists even when empty.
      lineBytes++;
      if (!finishLine()) break reading;
      start = end + 1;
    }
  }
  // A last line without a newline.
  if (!more && lineBytes > 0) finishLine();
  return { lines: out, linesSeen: lineNo, more, stoppedForSize, bytesRead: position };
}

function formatWindow(shown: string, window: ReadWindow, offset: number, limit: number) {
  const { lines: out, linesSeen, more, stoppedForSize, bytesRead } = window;
  if (out.length === 0) {
    if (linesSeen === 0 && offset === 1) return { output: `(${shown} is empty)`, metadata: { lines: 0, bytesRead } };
    throw new ToolError(`${shown} has ${linesSeen} line${linesSeen === 1 ? '' : 's'}; offset ${offset} is past the end of the file.`);
  }
  const first = offset;
  const last = offset + out.length - 1;
  let output = out.join('\n');
  if (more) {
    const why = stoppedForSize ? `output reached the ${MAX_READ_BYTES / 1024} KB limit` : `limit of ${limit} lines reached`;
    output += `\n\n(Showing lines ${first}-${last}; ${why}. The file has more lines: read again with offset=${last + 1} to continue.)`;
  }
  return { output, metadata: { path: shown, firstLine: first, lastLine: last, truncated: more, bytesRead } };
}

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
