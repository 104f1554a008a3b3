// Prepared images → the references messages keep (DESIGN §22): the bytes go to the blob
// store once, the message holds the hash, the name and the size. Throws what the file
// system throws (a full or read-only data dir); callers say so in their own words.
import type { ImagePart } from '../messages.js';
import type { BlobStore } from '../store/blobs.js';
import type { PreparedImage } from './prepare.js';

export function storeImages(blobs: BlobStore, images: readonly PreparedImage[]): ImagePart[] {
  return images.map((image) => ({
    type: 'image',
    sha256: blobs.put(image.bytes),
    media_type: image.media_type,
    name: image.name,
    width: image.width,
    height: image.height,
  }));
}
