// The images of a request about to be sent (DESIGN §22). Messages keep only references to
// their pictures (store/blobs.ts); here each one gets its bytes from the blob store, or
// becomes one bracketed sentence the model can read instead:
// - the model does not take images → `[image shot.png 64×64 not sent: … does not take images]`;
// - the stored copy is missing (a cleaned data dir, a session copied from elsewhere) → a
//   placeholder saying so, never a crash and never a request the API would refuse.
// The stored history is not touched: the same session sends the pictures again once it runs
// on a model that takes them.
import type { ImagePart, Message, Part, TextPart, ToolResultPart } from '../messages.js';
import type { BlobStore } from '../store/blobs.js';
import { imageLabel } from './label.js';

export interface ImageDelivery {
  blobs: BlobStore;
  /** Whether the request's model takes images. */
  accepted: boolean;
  /** `provider/model`, named in the note when it does not. */
  model: string;
}

/** Copies of `messages` whose images carry their bytes (or are notes); unchanged messages are reused. */
export function withImageData(messages: readonly Message[], delivery: ImageDelivery): Message[] {
  return messages.map((message) => {
    if (!message.content.some((p) => p.type === 'image' || (p.type === 'tool_result' && p.images?.length))) return message;
    return { role: message.role, content: message.content.map((part) => resolvePart(part, delivery)) };
  });
}

function resolvePart(part: Part, delivery: ImageDelivery): Part {
  if (part.type === 'image') {
    const resolved = resolveImage(part, delivery);
    return typeof resolved === 'string' ? text(resolved) : resolved;
  }
  if (part.type !== 'tool_result' || !part.images?.length) return part;
  const images: ImagePart[] = [];
  const notes: string[] = [];
  for (const image of part.images) {
    const resolved = resolveImage(image, delivery);
    if (typeof resolved === 'string') notes.push(resolved);
    else images.push(resolved);
  }
  const result: ToolResultPart = { ...part, content: [part.content, ...notes].filter(Boolean).join('\n') };
  if (images.length) result.images = images;
  else delete result.images;
  return result;
}

function resolveImage(image: ImagePart, delivery: ImageDelivery): ImagePart | string {
  if (!delivery.accepted) return imageLabel(image, `not sent: the model ${delivery.model} does not take images`);
  if (image.data) return image;
  const bytes = delivery.blobs.get(image.sha256);
  if (!bytes) return imageLabel(image, 'is no longer available: its stored copy is missing from the data dir');
  return { ...image, data: bytes.toString('base64') };
}

function text(value: string): TextPart {
  return { type: 'text', text: value };
}
