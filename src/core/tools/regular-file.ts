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

/**
 * Synchronous reader for small configuration-like files (.gitignore) read on the main
 * thread, where a blocking open would freeze the whole program, key presses and signals
 * included. Returns undefined when the path is missing, unreadable or not a regular file,
 * or when it is bigger than `maxBytes`.
 */
export function readRegularFileSync(file: string, maxBytes = 1024 * 1024): string | undefined {
  try {
    if (!statSync(file).isFile()) return undefined;
    const fd = openSync(file, READ_FLAGS);
    try {
      const info = fstatSync(fd);
      if (!info.isFile() || info.size > maxBytes) return undefined;
      const buffer = Buffer.alloc(info.size);
      let filled = 0;
      while (filled < buffer.length) {
        const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
        if (n === 0) break;
        filled += n;
      }
      return buffer.subarray(0, filled).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
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
