// Turns an image file's bytes into what can be sent to any provider (DESIGN §22), or a
// one-sentence refusal. Contract:
// - Only PNG, JPEG, GIF and WebP, told by their bytes; a file named like an image that holds
//   text, another picture format, or damaged bytes is refused with an ImageError that names
//   the file.
// - Limits are the strictest provider's (Anthropic's): at most 5 MB once base64-encoded
//   (MAX_IMAGE_BYTES raw) and MAX_IMAGE_SIDE pixels a side. Like Claude Code, anything larger
//   is scaled down to fit 2000×2000 keeping its aspect ratio (the API itself would shrink it
//   past 1568 px, and allows only 2000 px a side once a request holds over 20 images), then
//   re-encoded in its own format (GIF as PNG); when that is still too heavy, smaller sizes
//   and JPEG are tried before refusing. An image already within the limits is sent as it is.
// - sharp (native, a few MB) is loaded only when an image has to be scaled. A picture whose
//   header declares more than MAX_DECODE_PIXELS (a "decompression bomb": a few KB declaring
//   50,000×50,000) is refused from its header, before anything is decoded.
import { createHash } from 'node:crypto';
import type { ImageMediaType } from '../messages.js';
import { dimensionsOf, imageFormatOf, imageProblem, mediaTypeLabel, otherImageType, type ImageFormat } from './format.js';

/** Raw bytes whose base64 form is Anthropic's 5 MB per image. */
export const MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;
/** Longest side sent; Anthropic refuses more than 8000 px, and more than 2000 px in requests of over 20 images. */
export const MAX_IMAGE_SIDE = 2000;
/** Files beyond this are not read at all: no screenshot is this large, and decoding one would take long. */
export const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

/** An image ready to send: within the limits, with its bytes. */
export interface PreparedImage {
  name: string;
  media_type: ImageMediaType;
  width: number;
  height: number;
  bytes: Buffer;
  sha256: string;
  /** The original size when the image was scaled down to fit. */
  scaledFrom?: { width: number; height: number; bytes: number };
}

/** Why an image cannot be sent, in one sentence naming the file. */
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageError';
  }
}

/** sharp's own default ceiling (0x3FFF², about 268 megapixels), stated so the refusal can say it. */
export const MAX_DECODE_PIXELS = 0x3fff * 0x3fff;

/** The four formats' file extensions: a file named so that holds none of them is refused. */
const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

export function hasImageExtension(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot >= 0 && IMAGE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/**
 * Why a file whose bytes are no supported image cannot be read as one; undefined when its
 * name does not claim to be an image either (then it is someone else's business).
 */
export function notAnImageReason(name: string, head: Uint8Array): string | undefined {
  // Text is never taken for a picture: only a binary file is asked what format it is.
  const binary = head.subarray(0, 8192).includes(0);
  const other = binary ? otherImageType(head) : undefined;
  if (other) return `${name} is a ${other} image; only PNG, JPEG, GIF and WebP can be shown to the model (convert it first).`;
  if (!hasImageExtension(name)) return undefined;
  if (!binary) return `${name} is not an image: it holds text.`;
  return `${name} is not an image: its bytes are not PNG, JPEG, GIF or WebP whatever its name says.`;
}

export async function prepareImage(name: string, bytes: Buffer): Promise<PreparedImage> {
  const format = imageFormatOf(bytes);
  if (!format) throw new ImageError(notAnImageReason(name, bytes) ?? `${name} is not a PNG, JPEG, GIF or WebP image.`);
  const problem = imageProblem(bytes, format);
  if (problem) throw new ImageError(`${name} is a damaged ${format.label} image (${problem}); it cannot be sent.`);
  const size = dimensionsOf(bytes);
  if (typeof size === 'string') throw new ImageError(`${name} is a damaged ${format.label} image (${size}); it cannot be sent.`);
  if (size.width <= MAX_IMAGE_SIDE && size.height <= MAX_IMAGE_SIDE && bytes.length <= MAX_IMAGE_BYTES) {
    return { name, media_type: format.mediaType, ...size, bytes, sha256: sha256Of(bytes) };
  }
  if (size.width * size.height > MAX_DECODE_PIXELS) {
    const megapixels = Math.round((size.width * size.height) / 1e6).toLocaleString('en-US');
    throw new ImageError(
      `${name} is ${size.width}×${size.height} pixels (${megapixels} megapixels), too large to scale down: images over ${Math.floor(MAX_DECODE_PIXELS / 1e6)} megapixels are not read.`,
    );
  }
  const scaled = await scaleDown(name, bytes, format, size);
  return { name, ...scaled, sha256: sha256Of(scaled.bytes), scaledFrom: { ...size, bytes: bytes.length } };
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

type Sharp = typeof import('sharp');
let sharpModule: Promise<Sharp> | undefined;
function loadSharp(): Promise<Sharp> {
  sharpModule ??= import('sharp').then((m) => m.default);
  return sharpModule;
}

/** Sizes tried, as fractions of the largest that fits MAX_IMAGE_SIDE, until the bytes fit too. */
const SCALES = [1, 0.75, 0.5, 0.35, 0.25];

interface Encoded {
  media_type: ImageMediaType;
  width: number;
  height: number;
  bytes: Buffer;
}

async function scaleDown(name: string, bytes: Buffer, format: ImageFormat, size: { width: number; height: number }): Promise<Encoded> {
  const sharp = await loadSharp();
  const fit = Math.min(1, MAX_IMAGE_SIDE / Math.max(size.width, size.height));
  let smallest: Encoded | undefined;
  try {
    for (const scale of SCALES) {
      const width = Math.max(1, Math.round(size.width * fit * scale));
      const height = Math.max(1, Math.round(size.height * fit * scale));
      // `rotate()` applies the EXIF orientation, so the picture is scaled the way it is seen.
      const resized = () => sharp(bytes, { animated: false, limitInputPixels: MAX_DECODE_PIXELS }).rotate().resize(width, height, { fit: 'fill' });
      const own = await encode(resized(), format.mediaType);
      if (own.bytes.length <= MAX_IMAGE_BYTES) return own;
      smallest = own;
      if (format.mediaType === 'image/jpeg') continue;
      // Photos saved as PNG stay heavy however small: JPEG (on white, it has no transparency) is far lighter.
      const jpeg = await encode(resized().flatten({ background: '#ffffff' }), 'image/jpeg');
      if (jpeg.bytes.length <= MAX_IMAGE_BYTES) return jpeg;
    }
  } catch (err) {
    throw new ImageError(`${name} is a damaged ${format.label} image (${err instanceof Error ? err.message : String(err)}); it cannot be sent.`);
  }
  const mb = ((smallest?.bytes.length ?? bytes.length) / 1024 / 1024).toFixed(1);
  throw new ImageError(`${name} is too large to send even scaled down (${mb} MB at ${smallest?.width}×${smallest?.height}; the limit is 5 MB).`);
}

async function encode(pipeline: import('sharp').Sharp, mediaType: ImageMediaType): Promise<Encoded> {
  const out =
    mediaType === 'image/jpeg'
      ? pipeline.jpeg({ quality: 80, mozjpeg: true })
      : mediaType === 'image/webp'
        ? pipeline.webp({ quality: 80 })
        : pipeline.png({ compressionLevel: 9 });
  const { data, info } = await out.toBuffer({ resolveWithObject: true });
  return { media_type: mediaType === 'image/gif' ? 'image/png' : mediaType, width: info.width, height: info.height, bytes: data };
}

/** "PNG, 64×64, 1.2 KB", for the tool's own line about what it read. */
export function describeImage(image: PreparedImage): string {
  const kb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`);
  const now = `${mediaTypeLabel(image.media_type)}, ${image.width}×${image.height}, ${kb(image.bytes.length)}`;
  const from = image.scaledFrom;
  return from ? `${now}; scaled down from ${from.width}×${from.height} (${kb(from.bytes)}) to fit the model's image limits` : now;
}
