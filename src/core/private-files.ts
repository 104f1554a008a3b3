// The data dir holds every conversation, the prompt history and the trust list: only the
// user may read it, whatever the umask.
//
// Contract
// - `makePrivateDir(dir)` creates `dir` (and any missing parent) with mode 0700, and narrows
//   an existing `dir` that others could read or enter to 0700.
// - `securePrivateDataDir(dir)` does that, then narrows each file this program keeps in the
//   data dir (DATA_DIR_FILES) to 0600 when group or others have any access: one stat per
//   known name, no walk of the folder. Files older versions wrote 0644 are fixed at the
//   next start. `sessions.db` is created here, empty and 0600, when missing: SQLite would
//   create it 0644 whatever the umask, and gives its -wal and -shm files the database's mode.
// - New files are written with PRIVATE_FILE_MODE by whoever writes them;
//   `writePrivateFileOnce(file, bytes)` does it for content-addressed files (image blobs):
//   written whole to a temporary name then renamed, so another process never reads half of
//   one, and left alone when it already exists.
// - Failures (a read-only or foreign-owned folder) are left for the caller's own open or
//   write to report: narrowing is never a reason to stop.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The database, created on open. */
export const SESSIONS_DB = 'sessions.db';

/** Every file this program keeps directly in the data dir. */
export const DATA_DIR_FILES: readonly string[] = [
  SESSIONS_DB,
  `${SESSIONS_DB}-wal`,
  `${SESSIONS_DB}-shm`,
  `${SESSIONS_DB}-journal`,
  'trust.json',
  'prompt-history.json',
];

/** Folders this program keeps in the data dir (the code cache, when OPENCODE_INK_DATA_DIR is set). */
export const DATA_DIR_FOLDERS: readonly string[] = ['cache', 'blobs'];

export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  narrow(dir, PRIVATE_DIR_MODE);
}

export function securePrivateDataDir(dir: string): void {
  makePrivateDir(dir);
  for (const name of DATA_DIR_FOLDERS) narrow(join(dir, name), PRIVATE_DIR_MODE);
  for (const name of DATA_DIR_FILES) {
    const missing = narrow(join(dir, name), PRIVATE_FILE_MODE) === 'missing';
    if (missing && name === SESSIONS_DB) createPrivateFile(join(dir, name));
  }
}

/** Narrows `path` to `mode` when group or others have any access; 'missing' when there is nothing there. */
function narrow(path: string, mode: number): 'missing' | 'done' {
  try {
    const current = statSync(path).mode & 0o777;
    if ((current & 0o077) !== 0) chmodSync(path, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
  }
  return 'done';
}

function createPrivateFile(file: string): void {
  try {
    // 'a': never truncates, should another process have created it meanwhile.
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  } catch {
    // The store's own open reports what is wrong with the folder.
  }
}

/** Writes `bytes` to `file` (0600, its folder 0700) unless it exists: for files named by their content. */
export function writePrivateFileOnce(file: string, bytes: Uint8Array): void {
  if (existsSync(file)) return;
  makePrivateDir(dirname(file));
  const temporary = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    writeFileSync(temporary, bytes, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}
