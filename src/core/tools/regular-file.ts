// Only regular files are ever opened by the file tools, `@file` mentions and the .gitignore
// reader. Opening a FIFO for reading blocks a libuv pool thread in open() until a writer
// appears (and process.exit then waits on that thread forever), /dev/zero never ends, a
// socket cannot be opened at all, and a tty or other device may block or have side effects.
// So every open goes through here: stat first for a clear refusal, then open with
// O_NONBLOCK (which never waits, whatever the path turned into meanwhile) and check the
// opened descriptor with fstat, so a path swapped for a FIFO after the stat is still refused.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';

/** What a path is, in words for messages: "a FIFO", "a socket", "a character device"... */
export function kindOf(info: Stats): string {
  if (info.isFile()) return 'a regular file';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** A path that exists but is not a regular file (a FIFO, socket, device or directory). */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly shown: string,
    readonly kind: string,
  ) {
    super(`${shown} is ${kind}, not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

/** FIFOs, sockets and devices: things that exist, are not directories, and must not be opened. */
export function isSpecial(info: Stats): boolean {
  return !info.isFile() && !info.isDirectory() && !info.isSymbolicLink();
}

// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer. O_NOCTTY: a
// terminal device never becomes our controlling terminal. Both are no-ops on regular files.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Opens a regular file for reading; rejects with NotRegularFileError (naming `shown`) for
 * anything else, and with the usual ENOENT/EACCES errors for missing or unreadable paths.
 */
export async function openRegular(file: string, shown: string = file): Promise<FileHandle> {
  const before = await stat(file);
  if (!before.isFile()) throw new NotRegularFileError(shown, kindOf(before));
  const handle = await open(file, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotRegularFileError(shown, kindOf(info));
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** A regular file's whole content, read through openRegular. */
export async function readRegularFile(file: string, shown: string = file): Promise<Buffer> {
  const handle = await openRegular(file, shown);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A megabyte: the most any definition, instructions or configuration file may hold. */
export const MAX_SMALL_FILE_BYTES = 1024 * 1024;

/** Why a small file was not read; `size` is given for `too-big`, `code` for `unreadable`. */
export type SmallFileProblem =
  | { problem: 'missing' }
  | { problem: 'unreadable'; code: string }
  | { problem: 'not-regular'; kind: string }
  | { problem: 'too-big'; size: number };

export type SmallFile = { text: string } | SmallFileProblem;

/**
 * Synchronous reader for small files read on the main thread at start (.gitignore,
 * AGENTS.md, agent and command definitions, config files), where a blocking open would
 * freeze the whole program, key presses and signals included. Nothing is read from a file
 * over `maxBytes`: its size comes from fstat, so a 1 GB file costs one system call.
 */
export function readSmallFileSync(file: string, maxBytes = MAX_SMALL_FILE_BYTES): SmallFile {
  try {
    const before = statSync(file);
    if (!before.isFile()) return { problem: 'not-regular', kind: kindOf(before) };
    const fd = openSync(file, READ_FLAGS);
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return { problem: 'not-regular', kind: kindOf(info) };
      if (info.size > maxBytes) return { problem: 'too-big', size: info.size };
      const buffer = Buffer.alloc(info.size);
      let filled = 0;
      while (filled < buffer.length) {
        const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (n === 0) break;
        filled += n;
      }
      return { text: buffer.subarray(0, filled).toString('utf8') };
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return code === 'ENOENT' || code === 'ENOTDIR' ? { problem: 'missing' } : { problem: 'unreadable', code };
  }
}

/** A size for messages: "1.5 MB", "1.0 GB". */
export function describeSize(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Why a small file was skipped, as the end of a sentence: "is larger than 1 MB (1.0 GB)". */
export function describeProblem(problem: Exclude<SmallFileProblem, { problem: 'missing' }>, maxBytes = MAX_SMALL_FILE_BYTES): string {
  switch (problem.problem) {
    case 'unreadable':
      return `cannot be read (${problem.code})`;
    case 'not-regular':
      return `is ${problem.kind}, not a regular file`;
    case 'too-big':
      return `is larger than ${describeSize(maxBytes)} (${describeSize(problem.size)})`;
  }
}

/**
 * `readSmallFileSync` for callers that only need the text: undefined when the path is
 * missing, unreadable, not a regular file, or bigger than `maxBytes`.
 */
export function readRegularFileSync(file: string, maxBytes = MAX_SMALL_FILE_BYTES): string | undefined {
  const read = readSmallFileSync(file, maxBytes);
  return 'text' in read ? read.text : undefined;
}

const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/**
 * Creates or replaces a regular file. Refuses (NotRegularFileError) to write through a FIFO,
 * socket or device: opening a FIFO for writing blocks until a reader appears, and writing to
 * a device is never what "save this file" means. The check is repeated on the opened
 * descriptor, so a path swapped after the stat is still refused before any byte is written.
 */
export async function writeRegularFile(file: string, content: string | Uint8Array, shown: string = file): Promise<void> {
  const before = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (before && !before.isFile()) throw new NotRegularFileError(shown, kindOf(before));
  let handle: FileHandle;
  try {
    handle = await open(file, WRITE_FLAGS, 0o666);
  } catch (err) {
    // A FIFO with no reader, opened without blocking.
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw new NotRegularFileError(shown, 'a FIFO');
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new NotRegularFileError(shown, kindOf(info));
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
