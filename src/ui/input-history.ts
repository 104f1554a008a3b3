// Prompt history persisted as a JSON array of strings (oldest first) at a path the app
// chooses. A missing or corrupt file is an empty history: losing history must never stop
// the UI from starting.

import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../core/private-files.js';

export const HISTORY_LIMIT = 500;

/**
 * Read synchronously: it happens just before the first frame, and awaiting a read of a few
 * KB would hand the CPU to the event loop (and, on a busy machine, to other processes).
 */
export function loadInputHistory(file: string, limit = HISTORY_LIMIT): string[] {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((e): e is string => typeof e === 'string').slice(-limit);
  } catch {
    return [];
  }
}

/** Appends unless blank or equal to the newest entry; keeps the newest `limit`. */
export function addInputHistory(entries: readonly string[], entry: string, limit = HISTORY_LIMIT): string[] {
  if (entry.trim() === '' || entries[entries.length - 1] === entry) return entries.slice(-limit);
  return [...entries, entry].slice(-limit);
}

/** Writes through a temp file so a crash mid-write cannot truncate the history. */
export async function saveInputHistory(file: string, entries: readonly string[], limit = HISTORY_LIMIT): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
  const tmp = `${file}.${process.pid}.tmp`;
  // Private like the rest of the data dir, whatever the umask.
  await writeFile(tmp, JSON.stringify(entries.slice(-limit)), { encoding: 'utf8', mode: PRIVATE_FILE_MODE });
  await rename(tmp, file);
}

/** Load-modify-save in one call for the common "user pressed Enter" case. */
export async function appendInputHistory(file: string, entry: string, limit = HISTORY_LIMIT): Promise<string[]> {
  const next = addInputHistory(loadInputHistory(file, limit), entry, limit);
  await saveInputHistory(file, next, limit);
  return next;
}
