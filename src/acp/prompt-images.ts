// The pictures in an ACP `session/prompt` (DESIGN §16, §22): `image` blocks (base64 `data`
// and `mimeType`), embedded `resource` blobs of an image type, and `resource_link`s to an
// image file inside the project. Contract: they become the core's PromptImages, which the
// engine checks, scales and stores exactly like `@shot.png`; everything else stays text
// (`promptText`). A link outside the project, or to something that is no image file, is
// left to the text as a reference, as before.
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { hasImageExtension } from '../core/images/prepare.js';
import type { PromptImage } from '../core/images/attach.js';

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The images of a prompt, in the order the editor sent them. */
export function promptImages(blocks: readonly ContentBlock[], cwd: string): PromptImage[] {
  const images: PromptImage[] = [];
  blocks.forEach((block, index) => {
    const image = imageOf(block, cwd, index + 1);
    if (image) images.push(image);
  });
  return images;
}

/** Whether a block is sent as a picture rather than as text. */
export function isPromptImage(block: ContentBlock, cwd: string): boolean {
  return imageOf(block, cwd, 0) !== undefined;
}

function imageOf(block: ContentBlock, cwd: string, index: number): PromptImage | undefined {
  switch (block.type) {
    case 'image':
      return { name: nameFor(block.uri, block.mimeType, index), bytes: Buffer.from(block.data, 'base64') };
    case 'resource':
      if (!('blob' in block.resource) || !block.resource.mimeType?.startsWith('image/')) return undefined;
      return { name: nameFor(block.resource.uri, block.resource.mimeType, index), bytes: Buffer.from(block.resource.blob, 'base64') };
    case 'resource_link': {
      const file = projectFile(block.uri, cwd);
      const image = block.mimeType?.startsWith('image/') || hasImageExtension(block.name) || (file !== undefined && hasImageExtension(file));
      return file !== undefined && image ? { file } : undefined;
    }
    default:
      return undefined;
  }
}

/** The file's base name when the editor gave one, else `image-2.png` after its place in the prompt. */
function nameFor(uri: string | null | undefined, mimeType: string, index: number): string {
  const path = uri ? pathOf(uri) : undefined;
  if (path) return basename(path);
  return `image-${index}.${EXTENSIONS[mimeType.toLowerCase()] ?? 'bin'}`;
}

/** A `file://` URI (or a plain path) inside `cwd`, as an absolute path. */
function projectFile(uri: string, cwd: string): string | undefined {
  const path = pathOf(uri);
  if (!path) return undefined;
  const file = resolve(cwd, path);
  const inside = relative(cwd, file);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? file : undefined;
}

function pathOf(uri: string): string | undefined {
  if (uri.startsWith('file://')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }
  return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? undefined : uri;
}
