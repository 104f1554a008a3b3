// Which image a file holds, told by its bytes rather than its name (DESIGN §22), and whether
// those bytes are whole. Contract:
// - `imageFormatOf(head)` names PNG, JPEG, GIF or WebP from a file's first bytes (at least
//   IMAGE_SNIFF_BYTES when the file has them); anything else is undefined.
// - `imageProblem(bytes, format)` reads the dimensions from the headers (image-size) and checks
//   the format's end marker, so a truncated or damaged file is refused in one sentence rather
//   than sent to an API that would reject the whole request; undefined when all is well.
// - `otherImageType(bytes)` names a picture format the providers do not take (BMP, TIFF…).

import type { ImageMediaType } from '../messages.js';

/**
 * image-size (a module per image format) is evaluated at the first image measured, not at
 * start-up (the read tool imports this module). Required rather than imported, because a
 * bundle evaluates every imported module before its importer, whether used or not.
 */
let imageSizeModule: typeof import('image-size') | undefined;
function imageSize(bytes: Uint8Array): ReturnType<typeof import('image-size').imageSize> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at first use (see above)
  imageSizeModule ??= require('image-size') as typeof import('image-size');
  return imageSizeModule.imageSize(bytes);
}

/** Bytes enough to tell the four formats apart (WebP's tag sits at offset 8). */
export const IMAGE_SNIFF_BYTES = 16;

export interface ImageFormat {
  mediaType: ImageMediaType;
  /** How the user knows it: PNG, JPEG, GIF, WebP. */
  label: string;
}

const PNG: ImageFormat = { mediaType: 'image/png', label: 'PNG' };
const JPEG: ImageFormat = { mediaType: 'image/jpeg', label: 'JPEG' };
const GIF: ImageFormat = { mediaType: 'image/gif', label: 'GIF' };
const WEBP: ImageFormat = { mediaType: 'image/webp', label: 'WebP' };

const JPEG_END = Buffer.from([0xff, 0xd9]);
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

export function imageFormatOf(head: Uint8Array): ImageFormat | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return PNG;
  if (startsWith(head, [0xff, 0xd8, 0xff])) return JPEG;
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return GIF;
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return WEBP;
  return undefined;
}

export function mediaTypeLabel(mediaType: ImageMediaType): string {
  return [PNG, JPEG, GIF, WEBP].find((f) => f.mediaType === mediaType)?.label ?? mediaType;
}

export interface ImageDimensions {
  width: number;
  height: number;
}

/** Dimensions from the headers, or why they cannot be read. */
export function dimensionsOf(bytes: Uint8Array): ImageDimensions | string {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return 'its header gives no size';
    // EXIF orientations 5–8 turn the picture a quarter: it is shown (and scaled) turned.
    const turned = size.orientation !== undefined && size.orientation >= 5;
    return turned ? { width: size.height, height: size.width } : { width: size.width, height: size.height };
  } catch (err) {
    return err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
  }
}

/** Why `bytes` is not a whole image of `format`; undefined when its headers and end are in place. */
export function imageProblem(bytes: Uint8Array, format: ImageFormat): string | undefined {
  const size = dimensionsOf(bytes);
  if (typeof size === 'string') return size;
  if (!hasEnd(bytes, format)) return 'it is cut short (its end marker is missing)';
  return undefined;
}

function hasEnd(bytes: Uint8Array, format: ImageFormat): boolean {
  switch (format) {
    case PNG: {
      // The IEND chunk: length 0, type "IEND", CRC; anything after it is ignored by decoders.
      const iend = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf('IEND');
      return iend >= 12;
    }
    case JPEG:
      // The end-of-image marker, anywhere: phones append data after it (motion photos), and
      // an FF byte inside the compressed data is always stuffed, so FF D9 is only ever a marker.
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf(JPEG_END) > 2;
    case GIF: {
      // The trailer byte ends the file (some writers pad with zeros after it).
      let end = bytes.length - 1;
      while (end > 13 && bytes[end] === 0) end--;
      return end > 13 && bytes[end] === 0x3b;
    }
    case WEBP: {
      // RIFF's own length field says how long the file must be.
      const declared = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32LE(4) + 8;
      return bytes.length >= declared;
    }
    default:
      return true;
  }
}

/** Formats image-size recognises by a signature strict enough not to mistake other binaries for them. */
const OTHER_IMAGE_TYPES = new Set(['bmp', 'heif', 'icns', 'ico', 'jp2', 'jxl', 'psd', 'tiff']);

/** A picture format the providers do not take (BMP, TIFF, HEIF…), from a binary file's first bytes. */
export function otherImageType(bytes: Uint8Array): string | undefined {
  try {
    const { type } = imageSize(bytes);
    return type && OTHER_IMAGE_TYPES.has(type) ? type.toUpperCase() : undefined;
  } catch {
    return undefined;
  }
}
