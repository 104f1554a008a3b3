// One notion of "binary" for read and grep, so the model is never fed raw bytes.
import path from 'node:path';
import { openRegular } from './regular-file.js';

const BINARY_EXTENSIONS = new Set(
  (
    'png jpg jpeg gif bmp ico webp tif tiff psd heic avif ' +
    'zip gz tgz bz2 xz 7z rar tar zst lz4 jar war ear apk ipa dmg iso ' +
    'exe dll so dylib a o obj lib bin class pyc pyo wasm node ' +
    'pdf doc docx xls xlsx ppt pptx odt ods odp ' +
    'mp3 mp4 m4a wav flac ogg oga opus avi mov mkv webm wmv flv ' +
    'ttf otf woff woff2 eot sqlite sqlite3 db'
  ).split(' '),
);

export function hasBinaryExtension(file: string): boolean {
  return BINARY_EXTENSIONS.has(path.extname(file).slice(1).toLowerCase());
}

export function looksBinary(sample: Uint8Array): boolean {
  return sample.includes(0);
}

/**
 * NUL byte in the first 8 KB, the same heuristic git uses. Only a regular file is opened:
 * anything else rejects with NotRegularFileError rather than blocking on a FIFO or device.
 */
export async function sniffBinary(file: string): Promise<boolean> {
  const handle = await openRegular(file);
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
