// Content-addressed storage for the images of conversations (DESIGN §22): each distinct
// picture is kept once, at `<data dir>/blobs/<sha256>`, and messages hold only that hash
// (messages.ts ImagePart). Contract:
// - `put(bytes)` stores the bytes (0600 in a 0700 folder, via private-files.ts) and returns
//   their SHA-256; storing the same bytes again costs a stat.
// - `get(sha256)` returns the bytes, or undefined when the blob is gone (a cleaned-up data
//   dir, a session copied from elsewhere) or the name is not a hash at all (a hand-edited
//   database must not read files outside the folder): callers show a placeholder instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Of } from '../images/prepare.js';
import { writePrivateFileOnce } from '../private-files.js';

const SHA256 = /^[0-9a-f]{64}$/;

export class BlobStore {
  constructor(readonly dir: string) {}

  put(bytes: Uint8Array): string {
    const sha256 = sha256Of(bytes);
    writePrivateFileOnce(join(this.dir, sha256), bytes);
    return sha256;
  }

  get(sha256: string): Buffer | undefined {
    if (!SHA256.test(sha256)) return undefined;
    try {
      const bytes = readFileSync(join(this.dir, sha256));
      // A blob damaged on disk is as good as missing: sending it would fail the whole request.
      return sha256Of(bytes) === sha256 ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
}
