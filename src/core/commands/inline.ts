// What a prompt pulls in before it is sent: the output of `` !`cmd` `` (commands only) and
// the content of each `@path` that names a file. Both go through the session's own tools,
// so the same permission rules apply as when the model runs `bash` or `read`. A mentioned
// image (`@shot.png`) is not inlined as text: `read` hands back the picture, which goes with
// the user's message as an image part (DESIGN §22).
import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ImagePart } from '../messages.js';

/** What `read` gave for a mentioned file: its text, and the pictures when it is an image. */
export interface InlineFile {
  text: string;
  images: ImagePart[];
}

export interface InlineIo {
  /** Where relative paths start. */
  cwd: string;
  /** The `read` tool's output for a file (with its images, stored); rejects when refused or unreadable. */
  readFile(path: string): Promise<string | InlineFile>;
  /** The `bash` tool's output for a command; rejects when refused. */
  runShell(command: string): Promise<string>;
}

const SHELL_INLINE = /!`([^`\n]+)`/g;

/** The `` !`cmd` `` commands of a text, in order. */
export function shellInlines(text: string): string[] {
  return [...text.matchAll(SHELL_INLINE)].map((m) => m[1]!.trim());
}

/** Replaces each `` !`cmd` `` with the command's output, in order. */
export async function expandShell(text: string, io: InlineIo): Promise<string> {
  const matches = [...text.matchAll(SHELL_INLINE)];
  if (!matches.length) return text;
  const outputs: string[] = [];
  for (const m of matches) {
    const command = m[1]!.trim();
    try {
      outputs.push(await io.runShell(command));
    } catch (err) {
      throw new Error(`cannot run !\`${command}\`: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  let i = 0;
  return text.replace(SHELL_INLINE, () => outputs[i++]!);
}

/**
 * A mention names anything that exists and is not a directory: a FIFO, socket or device
 * counts too, so that `read` refuses it with a clear message (stat itself never opens it)
 * rather than the mention being silently left as text.
 */
function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The file an `@token` names: as written, or without trailing punctuation ("see @a.ts."). */
function fileOf(token: string, cwd: string): string | undefined {
  let candidate = token;
  for (;;) {
    if (candidate && isFile(resolve(cwd, candidate))) return candidate;
    const shorter = candidate.replace(/[.,;:!?)\]'"]$/, '');
    if (shorter === candidate) return undefined;
    candidate = shorter;
  }
}

/** The `@path` references of a text that name existing files, each once, in order. */
export function fileReferences(text: string, cwd: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s(])@([^\s@`]+)/g)) {
    const path = fileOf(m[1]!, cwd);
    if (path && !found.includes(path)) found.push(path);
  }
  return found;
}

/**
 * Appends the content of every file the text references, each in a `<file>` block. Only
 * files inside `root` (the project) are taken; a reference outside it is refused.
 */
export async function attachFiles(text: string, io: InlineIo, root: string): Promise<string> {
  return (await attachMentions(text, io, root)).text;
}

/**
 * Like attachFiles, but a referenced image comes back as a picture for the user's message
 * instead of a `<file>` block.
 */
export async function attachMentions(text: string, io: InlineIo, root: string): Promise<InlineFile> {
  const blocks: string[] = [];
  const images: ImagePart[] = [];
  for (const path of fileReferences(text, io.cwd)) {
    const rel = relative(root, resolve(io.cwd, path));
    if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`@${path} is outside the project (${root}), so it is not attached`);
    let content: string | InlineFile;
    try {
      content = await io.readFile(path);
    } catch (err) {
      throw new Error(`cannot attach @${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (typeof content !== 'string' && content.images.length) images.push(...content.images);
    else blocks.push(`<file path="${path}">\n${typeof content === 'string' ? content : content.text}\n</file>`);
  }
  return { text: blocks.length ? `${text}\n\n${blocks.join('\n\n')}` : text, images };
}
