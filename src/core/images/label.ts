// How an image is named wherever the conversation is shown as text (DESIGN §22): the TUI,
// `sessions show`, the wire text beside an image, placeholders. One format, `[image
// shot.png 64×64]`, so the user recognises the same picture everywhere.
import type { ImagePart } from '../messages.js';

export type ImageLabelled = Pick<ImagePart, 'name' | 'width' | 'height'>;

/** `[image shot.png 64×64]`, or with a note inside the brackets: `[image shot.png 64×64 attached below]`. */
export function imageLabel(image: ImageLabelled, note?: string): string {
  return `[image ${image.name} ${image.width}×${image.height}${note ? ` ${note}` : ''}]`;
}
