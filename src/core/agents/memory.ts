// Per-agent memory (Claude Code's `memory: user | project | local`): a folder of the agent's
// own whose MEMORY.md is put into its system prompt and whose files it reads and writes with
// the `memory` tool, without asking.
//
// Contract
// - Folders: user → `<config dir>/agent-memory/<agent>/`; project →
//   `<project root>/.claude/agent-memory/<agent>/`; local → `<project root>/.claude/agent-memory-local/<agent>/`,
//   which the program git-ignores with a `.gitignore` holding `*` in `agent-memory-local/`.
// - The agent name must be a plain file name (letters, digits, `.`, `_`, `-`, not starting
//   with a dot); otherwise the agent has no memory and the reason is given.
// - Nothing outside the folder is ever reached: every folder from the anchor (the project
//   root or the config dir) down to a file must be a real directory, never a symbolic link;
//   files are opened with O_NOFOLLOW and O_NONBLOCK, must be regular files with one link
//   (a hard link would write through to a file elsewhere); names are plain (`notes.md`,
//   `topics/api.md`): no `..`, no dot files, markdown only, so the folder can never hold a
//   file that some other program reads as its configuration.
// - MEMORY.md goes into the prompt up to MEMORY_PROMPT_MAX_LINES lines and
//   MEMORY_PROMPT_MAX_BYTES bytes; a marker names the cap when it was cut. A file the tool
//   writes is at most MEMORY_FILE_MAX_BYTES; a folder holds at most MEMORY_MAX_FILES files.
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { MemoryScope } from './schema.js';

export const MEMORY_INDEX = 'MEMORY.md';
export const MEMORY_PROMPT_MAX_LINES = 200;
export const MEMORY_PROMPT_MAX_BYTES = 25_000;
export const MEMORY_FILE_MAX_BYTES = 100_000;
export const MEMORY_MAX_FILES = 100;

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_DEPTH = 3;

export interface MemoryRoots {
  /** The project's root folder (project and local scopes live under its `.claude/`). */
  projectRoot: string;
  /** The folder user-scope memories live in: `<config dir>/agent-memory`. */
  userRoot: string;
}

/** The folder of the user's config dir that holds `memory: user` agents' folders. */
export const USER_MEMORY_FOLDER = 'agent-memory';

/** Where an agent's memory folder is: the anchor that must already be trusted to exist, and the folders below it. */
export interface MemoryPlace {
  scope: MemoryScope;
  /** The folder the chain starts from; it is not checked (the user's config dir, the project root). */
  anchor: string;
  /** Folder names from the anchor down to the memory folder. */
  segments: string[];
  /** The memory folder's full path. */
  dir: string;
}

export class MemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryError';
  }
}

/** The agent's memory folder, or why it cannot have one. */
export function memoryPlace(scope: MemoryScope, agentName: string, roots: MemoryRoots): MemoryPlace | { error: string } {
  if (!SAFE_SEGMENT.test(agentName)) {
    return { error: `agent "${agentName}" has no memory folder: its name must be letters, digits, ".", "_" or "-", not starting with a dot.` };
  }
  const anchor = scope === 'user' ? roots.userRoot : roots.projectRoot;
  const segments = scope === 'user' ? [agentName] : ['.claude', scope === 'project' ? 'agent-memory' : 'agent-memory-local', agentName];
  return { scope, anchor, segments, dir: join(anchor, ...segments) };
}

/** Creates (or checks) each folder of the chain below `base`; a symbolic link or a non-folder anywhere refuses. */
function ensureFolders(base: string, segments: readonly string[], create: boolean): string | undefined {
  let path = base;
  for (const segment of segments) {
    path = join(path, segment);
    let info;
    try {
      info = lstatSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!create) return undefined;
      mkdirSync(path, { mode: 0o700 });
      info = lstatSync(path);
    }
    if (info.isSymbolicLink()) throw new MemoryError(`${path} is a symbolic link; a memory folder must not lead anywhere else.`);
    if (!info.isDirectory()) throw new MemoryError(`${path} is not a folder.`);
  }
  return path;
}

/** The memory folder, created when missing (the local scope's folder gets its git-ignore file). */
export function openMemoryFolder(place: MemoryPlace): string {
  mkdirSync(place.anchor, { recursive: true });
  const dir = ensureFolders(place.anchor, place.segments, true)!;
  if (place.scope === 'local') {
    const ignore = join(place.anchor, ...place.segments.slice(0, -1), '.gitignore');
    try {
      writeFileSync(ignore, '# Written by opencode-ink: agents\' local memory stays out of git.\n*\n', { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return dir;
}

/** `topics/api.md` → its segments; anything that is not a plain relative markdown path is refused. */
export function memoryPath(raw: string): string[] {
  const segments = raw.replace(/\\/g, '/').split('/').filter((s) => s.length > 0);
  if (segments.length === 0) throw new MemoryError('Give a file name inside the memory folder, such as MEMORY.md.');
  if (raw.startsWith('/') || segments.length > MAX_DEPTH || segments.some((s) => !SAFE_SEGMENT.test(s))) {
    throw new MemoryError(`"${raw}" is not a file of the memory folder: use a relative path of plain names (letters, digits, ".", "_", "-"; no "..", no dot files), at most ${MAX_DEPTH} deep.`);
  }
  if (!segments.at(-1)!.toLowerCase().endsWith('.md')) throw new MemoryError(`"${raw}": memory files are markdown files ending in .md.`);
  return segments;
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

function openChecked(file: string, flags: number, shown: string): number {
  let fd: number;
  try {
    fd = openSync(file, flags | NO_FOLLOW | NON_BLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new MemoryError(`${shown} is a symbolic link; memory files must be plain files.`);
    if (code === 'ENOENT') throw new MemoryError(`${shown} does not exist in the memory folder.`);
    throw err;
  }
  const info = fstatSync(fd);
  if (!info.isFile() || info.nlink > 1) {
    closeSync(fd);
    throw new MemoryError(`${shown} is not a plain file of the memory folder${info.nlink > 1 ? ' (it has other hard links)' : ''}.`);
  }
  return fd;
}

function readLimited(fd: number, limit: number): { text: string; cut: boolean } {
  const buffer = Buffer.alloc(limit + 1);
  let length = 0;
  while (length < buffer.length) {
    const n = readSync(fd, buffer, length, buffer.length - length, null);
    if (n === 0) break;
    length += n;
  }
  return { text: buffer.subarray(0, Math.min(length, limit)).toString('utf8'), cut: length > limit };
}

/** Reads a file of the memory folder (at most MEMORY_FILE_MAX_BYTES). */
export function readMemoryFile(dir: string, raw: string): string {
  const segments = memoryPath(raw);
  const parent = ensureFolders(dir, segments.slice(0, -1), false);
  if (parent === undefined) throw new MemoryError(`${raw} does not exist in the memory folder.`);
  const fd = openChecked(join(parent, segments.at(-1)!), constants.O_RDONLY, raw);
  try {
    const { text, cut } = readLimited(fd, MEMORY_FILE_MAX_BYTES);
    return cut ? `${text}\n[${raw} is longer than ${MEMORY_FILE_MAX_BYTES} bytes; the rest is not shown]` : text;
  } finally {
    closeSync(fd);
  }
}

/** Replaces (or creates) a file of the memory folder; returns its path. */
export function writeMemoryFile(dir: string, raw: string, content: string): string {
  const segments = memoryPath(raw);
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length > MEMORY_FILE_MAX_BYTES) throw new MemoryError(`${raw} would be ${bytes.length} bytes; a memory file holds at most ${MEMORY_FILE_MAX_BYTES}. Keep it shorter or split it.`);
  const parent = ensureFolders(dir, segments.slice(0, -1), true)!;
  const file = join(parent, segments.at(-1)!);
  let exists = true;
  try {
    lstatSync(file);
  } catch {
    exists = false;
  }
  if (!exists && listMemoryFiles(dir).length >= MEMORY_MAX_FILES) throw new MemoryError(`The memory folder already holds ${MEMORY_MAX_FILES} files, its limit; fold some together first.`);
  const fd = openChecked(file, constants.O_WRONLY | constants.O_CREAT, raw);
  try {
    // Truncated only once the descriptor is known to be a plain file of our own (openChecked).
    ftruncateSync(fd, 0);
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** Every markdown file of the folder, relative, sorted; links and other things are left out. */
export function listMemoryFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (folder: string, prefix: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!SAFE_SEGMENT.test(entry.name)) continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && depth < MAX_DEPTH) walk(join(folder, entry.name), rel, depth + 1);
      else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) found.push(rel);
    }
  };
  walk(dir, '', 1);
  return found.sort();
}

/** The prompt section for an agent with memory: where the folder is and MEMORY.md, capped. */
export function memoryPromptSection(place: MemoryPlace, dir: string): string {
  let index = '';
  try {
    index = readMemoryIndex(dir);
  } catch (err) {
    index = `(${MEMORY_INDEX} could not be read: ${err instanceof Error ? err.message : String(err)})`;
  }
  return [
    `# Your memory (${place.scope} scope)`,
    `You have a memory folder of your own at ${dir}, kept across sessions. Read and write its markdown files with the \`memory\` tool; it never asks the user. Keep ${MEMORY_INDEX} as a short index of what you learned (only its first ${MEMORY_PROMPT_MAX_LINES} lines or ${MEMORY_PROMPT_MAX_BYTES} bytes are shown here) and put details in other files it points to. Record what will help you next time: conventions, decisions, recurring problems and their fixes.`,
    index.trim() ? `Contents of ${MEMORY_INDEX}:\n${index.trim()}` : `${MEMORY_INDEX} is empty or does not exist yet.`,
  ].join('\n\n');
}

/** MEMORY.md as the prompt shows it: the first lines, within the byte cap, and a marker naming the cap when cut. */
export function readMemoryIndex(dir: string): string {
  let fd: number;
  try {
    fd = openChecked(join(dir, MEMORY_INDEX), constants.O_RDONLY, MEMORY_INDEX);
  } catch (err) {
    if (err instanceof MemoryError && /does not exist/.test(err.message)) return '';
    throw err;
  }
  let read;
  try {
    read = readLimited(fd, MEMORY_PROMPT_MAX_BYTES);
  } finally {
    closeSync(fd);
  }
  const lines = read.text.split('\n');
  const byLines = lines.length > MEMORY_PROMPT_MAX_LINES;
  const text = byLines ? lines.slice(0, MEMORY_PROMPT_MAX_LINES).join('\n') : read.text;
  if (!byLines && !read.cut) return text;
  return `${text}\n[${MEMORY_INDEX} truncated: only its first ${MEMORY_PROMPT_MAX_LINES} lines or ${MEMORY_PROMPT_MAX_BYTES} bytes are loaded; read the rest with the memory tool and keep the index shorter]`;
}
