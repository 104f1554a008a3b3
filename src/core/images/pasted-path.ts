// A prompt that is nothing but the path of an image file, as terminals paste a dragged or
// copied file (DESIGN §22): `/tmp/shot.png`, `'/tmp/my shot.png'`, `/tmp/my\ shot.png`,
// `file:///tmp/shot.png`, `~/Desktop/shot.png`. Contract:
// - `pastedImagePath(text, cwd)` gives the absolute path when the whole prompt (one line)
//   names an existing regular file that holds an image or is named like one, else undefined
//   (so ordinary prompts are never touched).
// - `loadImageFile(file)` reads it (regular files only, size-capped) and prepares it for the
//   model (prepare.ts), or throws an ImageError sentence. The user pasted the path themselves,
//   so it is read wherever it is, like a file they attach in Claude Code; only an image can
//   be attached this way, never a text file.
import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRegular } from '../tools/regular-file.js';
import { IMAGE_SNIFF_BYTES, imageFormatOf } from './format.js';
import { hasImageExtension, ImageError, MAX_IMAGE_FILE_BYTES, prepareImage, type PreparedImage } from './prepare.js';

export function pastedImagePath(text: string, cwd: string): string | undefined {
  const written = unquote(text.trim());
  if (!written || written.includes('\n')) return undefined;
  let file: string;
  try {
    file = written.startsWith('file://') ? fileURLToPath(written) : written;
  } catch {
    return undefined;
  }
  if (file === '~' || file.startsWith('~/')) file = path.join(homedir(), file.slice(1));
  const absolute = path.resolve(cwd, file);
  try {
    if (!statSync(absolute).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return hasImageExtension(absolute) || startsLikeImage(absolute) ? absolute : undefined;
}

/** `'…'` and `"…"` as written; otherwise backslash escapes (`my\ shot.png`) undone. */
function unquote(text: string): string {
  const quoted = /^(['"])(.*)\1$/s.exec(text);
  if (quoted) return quoted[1] === "'" ? quoted[2]! : quoted[2]!.replace(/\\(.)/g, '$1');
  return text.replace(/\\(.)/g, '$1');
}

function startsLikeImage(file: string): boolean {
  let fd: number | undefined;
  try {
    // Non-blocking: should the file have been swapped for a FIFO since the stat, open never waits.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const head = Buffer.alloc(IMAGE_SNIFF_BYTES);
    const n = readSync(fd, head, 0, head.length, 0);
    return imageFormatOf(head.subarray(0, n)) !== undefined;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export async function loadImageFile(file: string): Promise<PreparedImage> {
  const name = path.basename(file);
  const handle = await openRegular(file, name);
  try {
    const { size } = await handle.stat();
    if (size > MAX_IMAGE_FILE_BYTES) {
      throw new ImageError(`${name} is too large to attach (${(size / 1024 / 1024).toFixed(0)} MB; the limit is ${MAX_IMAGE_FILE_BYTES / 1024 / 1024} MB).`);
    }
    return await prepareImage(name, await handle.readFile());
  } finally {
    await handle.close();
  }
}
