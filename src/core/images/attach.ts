// Images a front end hands over with a prompt (an editor's pasted picture over ACP, a file it
// links), made into the same stored image parts as `@shot.png` (DESIGN §22).
// Contract: each goes through the same checks and scaling as a mentioned file (formats told by
// their bytes, the size limits, scaled down or refused); the bytes are stored once by content
// hash. A refusal is a RunError of one sentence naming the image; nothing is stored for a
// prompt any of whose images is refused.
import { errorMessage, RunError, sentence } from '../errors.js';
import type { ImagePart } from '../messages.js';
import type { BlobStore } from '../store/blobs.js';
import { loadImageFile } from './pasted-path.js';
import { MAX_IMAGE_FILE_BYTES, prepareImage, type PreparedImage } from './prepare.js';
import { storeImages } from './store.js';

/** A picture given with a prompt: its bytes (with a name to show), or an image file to read. */
export type PromptImage = { name: string; bytes: Buffer } | { file: string };

export async function preparePromptImages(blobs: BlobStore, images: readonly PromptImage[]): Promise<ImagePart[]> {
  const prepared: PreparedImage[] = [];
  for (const image of images) {
    try {
      prepared.push('file' in image ? await loadImageFile(image.file) : await prepareBytes(image.name, image.bytes));
    } catch (err) {
      throw new RunError(sentence(errorMessage(err)));
    }
  }
  return storeImages(blobs, prepared);
}

async function prepareBytes(name: string, bytes: Buffer): Promise<PreparedImage> {
  if (bytes.length > MAX_IMAGE_FILE_BYTES) {
    throw new Error(`${name} is too large to attach (${(bytes.length / 1024 / 1024).toFixed(0)} MB; the limit is ${MAX_IMAGE_FILE_BYTES / 1024 / 1024} MB).`);
  }
  return prepareImage(name, bytes);
}
