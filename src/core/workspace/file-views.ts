// What one session has seen of the files it read or wrote, so `write` and `edit` can refuse a
// blind overwrite or a change made from an out-of-date view (DESIGN §17). A view is the file's
// fingerprint at that moment: size and mtime, plus a SHA-256 of its bytes whenever the whole
// content passed through our hands (every file we wrote, every file read that is at most
// HASH_LIMIT_BYTES). When the hash is known the content decides, so a `touch` or a formatter
// that rewrites identical bytes does not force a re-read; a huge file read in windows falls
// back to size and mtime. Callers key views by the file's real path, so reading through a
// symlink counts for its target. Views live in memory for as long as the process runs; a
// session resumed in another process starts with none and reads again.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Files up to this size are hashed when read; bigger ones are fingerprinted by size and mtime. */
export const HASH_LIMIT_BYTES = 16 * 1024 * 1024;
const HASH_CHUNK_BYTES = 256 * 1024;

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  /** SHA-256 of the bytes, hex; absent when the file was too big to hash on read. */
  sha256?: string;
}

/** One session's views, keyed by real path. */
export class FileViews {
  private readonly views = new Map<string, Fingerprint>();

  remember(realPath: string, fingerprint: Fingerprint): void {
    this.views.set(realPath, fingerprint);
  }

  recall(realPath: string): Fingerprint | undefined {
    return this.views.get(realPath);
  }
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Whether a file that now has these stats and bytes is still what the view saw. */
export function isCurrent(view: Fingerprint, now: { stats: Pick<Stats, 'size' | 'mtimeMs'>; bytes: Buffer }): boolean {
  if (view.sha256 !== undefined) return sha256(now.bytes) === view.sha256;
  return now.stats.size === view.size && now.stats.mtimeMs === view.mtimeMs;
}

/**
 * The fingerprint of a file open for reading, taken through the same handle its content was
 * read from, so it describes exactly what the reader saw even when the path was replaced by a
 * rename meanwhile. `openedAs` is the handle's stat from before the read: if the file changed
 * in place while it was read, the hash is left out and the older stat kept, which no longer
 * matches the file and so forces a fresh read before any change.
 */
export async function fingerprintOpenFile(handle: FileHandle, openedAs: Stats): Promise<Fingerprint> {
  const base = { size: openedAs.size, mtimeMs: openedAs.mtimeMs };
  if (openedAs.size > HASH_LIMIT_BYTES) return base;
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
    if (position > HASH_LIMIT_BYTES) return base;
  }
  const after = await handle.stat();
  if (after.size !== openedAs.size || after.mtimeMs !== openedAs.mtimeMs || position !== openedAs.size) return base;
  return { ...base, sha256: hash.digest('hex') };
}
