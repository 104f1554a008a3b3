// Replaces a file's content so that nobody ever sees half of it, and only if the file is
// still what the caller expects. The new bytes go to a temporary file in the same folder
// (same filesystem, so the rename is atomic), which takes the old file's mode and, when
// permitted, its owner; it is flushed to disk; then the target is checked one last time,
// by content, and the temporary file renamed over it. A new file is put in place with a
// hard link, which fails if something created the path meanwhile, instead of a rename that
// would clobber it. The last check is what catches another process: between it and the
// rename there are only a few microseconds, where a lock in this process covers the rest.
// Callers pass the real path (symlinks already followed), so a link stays a link and its
// target is what gets replaced. A replaced file is a new inode: hard links to the old one
// keep the old content, as with most editors. When the folder is not writable but the file
// is, the file is rewritten in place after the same check (not atomic, but still safe from
// lost updates within the process).
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { kindOf, NotRegularFileError, readRegularFile, writeRegularFile } from '../tools/regular-file.js';
import { sha256 } from './file-views.js';

/** What the target must still be for the replace to go ahead. */
export type Expectation = { kind: 'absent' } | { kind: 'content'; sha256: string };

/** The target was no longer what the caller expected: nothing was written. */
export class ChangedOnDiskError extends Error {
  constructor(
    readonly shown: string,
    readonly found: 'created' | 'changed' | 'deleted',
  ) {
    super(`${shown} was ${found} by something else before it could be written`);
    this.name = 'ChangedOnDiskError';
  }
}

/** Longest part of the target's name kept in the temporary file's name (NAME_MAX is 255). */
const MAX_TEMP_STEM = 200;
/** Errors from creating the temporary file that mean "the folder is not writable". */
const FOLDER_NOT_WRITABLE = new Set(['EACCES', 'EPERM']);
/** Errors from link() that mean "no hard links here", not "the path exists". */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** Writes `content` to `target` if it still matches `expected`; returns the new file's stats. */
export async function replaceFile(target: string, content: Uint8Array, expected: Expectation, shown: string = target): Promise<Stats> {
  const existing = await statIfExists(target);
  if (existing && !existing.isFile()) throw new NotRegularFileError(shown, kindOf(existing));
  let temp: string | undefined;
  let handle: FileHandle;
  try {
    ({ temp, handle } = await createTemp(target, existing));
  } catch (err) {
    if (!FOLDER_NOT_WRITABLE.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    await verify(target, expected, shown);
    await writeRegularFile(target, content, shown);
    return stat(target);
  }
  try {
    try {
      await handle.writeFile(content);
      if (existing) await keepModeAndOwner(handle, existing);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await verify(target, expected, shown);
    if (expected.kind === 'absent') await placeNew(temp, target, shown);
    else await rename(temp, target);
    temp = undefined;
    return await stat(target);
  } finally {
    if (temp !== undefined) await unlink(temp).catch(() => undefined);
  }
}

async function statIfExists(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function createTemp(target: string, existing: Stats | undefined): Promise<{ temp: string; handle: FileHandle }> {
  const stem = path.basename(target).slice(0, MAX_TEMP_STEM);
  const temp = path.join(path.dirname(target), `.${stem}.${randomBytes(6).toString('hex')}.tmp`);
  // A new file gets the usual 0666 minus umask; a replacement starts private and takes the
  // old file's mode once written, so it is never readable more widely than the original.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, existing ? 0o600 : 0o666);
  return { temp, handle };
}

async function keepModeAndOwner(handle: FileHandle, existing: Stats): Promise<void> {
  await handle.chmod(existing.mode & 0o7777);
  const mine = await handle.stat();
  if (mine.uid !== existing.uid || mine.gid !== existing.gid) {
    // Only root (or a member of the group) may do this; otherwise the file becomes ours, as
    // it does when an editor saves it.
    await handle.chown(existing.uid, existing.gid).catch(() => undefined);
    // chown may clear setuid/setgid bits: put the mode back.
    await handle.chmod(existing.mode & 0o7777).catch(() => undefined);
  }
}

async function verify(target: string, expected: Expectation, shown: string): Promise<void> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readRegularFile(target, shown);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (expected.kind === 'absent') {
    if (bytes !== undefined) throw new ChangedOnDiskError(shown, 'created');
  } else if (bytes === undefined) {
    throw new ChangedOnDiskError(shown, 'deleted');
  } else if (sha256(bytes) !== expected.sha256) {
    throw new ChangedOnDiskError(shown, 'changed');
  }
}

/** Puts a new file in place without ever replacing one that appeared meanwhile. */
async function placeNew(temp: string, target: string, shown: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new ChangedOnDiskError(shown, 'created');
    if (!NO_HARD_LINKS.has(code)) throw err;
    // A filesystem without hard links: the best left is to check again and rename.
    await verify(target, { kind: 'absent' }, shown);
    await rename(temp, target);
    return;
  }
  await unlink(temp);
}
