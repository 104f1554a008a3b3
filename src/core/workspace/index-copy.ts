// Copies a git index file for use as a throwaway GIT_INDEX_FILE. Contract: the copy has the
// same entries and carries the original's modification time (a second earlier, never later),
// so git treats it exactly as it treats the original. Why: git trusts an entry's cached stat
// only when the file is older than the index; a copy stamped "now" would make git trust the
// cached stat of a same-size file edited in the same second the original index was written,
// and the copy would record the old content. Returns false when there is no index to copy
// (git then starts an empty one). The copy is made only where nothing exists yet (never
// through a link planted at its name in a shared temp folder) and readable by its owner only:
// an index lists every tracked path of the project.
import { constants } from 'node:fs';
import { chmod, copyFile, stat, utimes } from 'node:fs/promises';

export async function copyIndexFile(from: string, to: string): Promise<boolean> {
  try {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  await chmod(to, 0o600);
  const { atime, mtimeMs } = await stat(from);
  await utimes(to, atime, new Date(mtimeMs - 1000));
  return true;
}
