// Tar archives in memory, the format the Docker Engine API moves files in (`putArchive`) and
// `tar -c` in a container writes. Contract: `packTar` writes POSIX ustar with PAX records for
// long names; `parseTar` reads ustar, PAX (`x`, `g` skipped) and GNU long names (`L`, `K`), the
// formats GNU tar, busybox tar and Go's archive/tar produce, and throws on a corrupt archive.
// Only regular files, folders and symbolic links are carried; other entries are skipped.

export type TarEntryType = 'file' | 'dir' | 'symlink';

export interface TarEntry {
  /** Relative path, `/`-separated, no leading `./`. */
  name: string;
  type: TarEntryType;
  /** Permission bits (0o7777). */
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
  data?: Buffer;
  linkname?: string;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function paxRecord(key: string, value: string): string {
  // The length prefix counts itself, so grow it until it is stable.
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function header(fields: { name: string; mode: number; size: number; mtime: number; typeflag: string; linkname: string }): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(fields.name, 0, 100, 'utf8');
  block.write(octal(fields.mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(fields.size, 12), 124, 'ascii');
  block.write(octal(Math.max(0, Math.floor(fields.mtime)), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(fields.typeflag, 156, 'ascii');
  block.write(fields.linkname, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 'ascii');
  return block;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest)];
}

const fits = (text: string): boolean => Buffer.byteLength(text) <= 99 && /^[\x20-\x7e]*$/.test(text);

/** One archive holding `entries`, in order (folders before what they hold). */
export function packTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const name = entry.type === 'dir' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name;
    const linkname = entry.linkname ?? '';
    let pax = '';
    if (!fits(name)) pax += paxRecord('path', name);
    if (!fits(linkname)) pax += paxRecord('linkpath', linkname);
    if (pax) {
      const body = Buffer.from(pax);
      parts.push(header({ name: 'PaxHeader', mode: 0o644, size: body.length, mtime: entry.mtime, typeflag: 'x', linkname: '' }), ...padded(body));
    }
    const data = entry.type === 'file' ? (entry.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    const typeflag = entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2';
    parts.push(header({ name: fits(name) ? name : name.slice(0, 99), mode: entry.mode, size: data.length, mtime: entry.mtime, typeflag, linkname: fits(linkname) ? linkname : '' }));
    if (data.length) parts.push(...padded(data));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function text(block: Buffer, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return (end === -1 ? slice : slice.subarray(0, end)).toString('utf8');
}

function number(block: Buffer, start: number, length: number): number {
  // GNU base-256 for values too large for octal.
  if ((block[start]! & 0x80) !== 0) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const digits = text(block, start, length).trim();
  if (digits === '') return 0;
  const value = parseInt(digits, 8);
  if (Number.isNaN(value)) throw new Error('corrupt tar header (a number field is not octal)');
  return value;
}

function paxFields(data: Buffer): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!(length > 0)) break;
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) fields.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return fields;
}

const cleanName = (name: string): string => name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');

/** The files, folders and links of an archive. */
export function parseTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let at = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  while (at + BLOCK <= archive.length) {
    const block = archive.subarray(at, at + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
    if (sum !== number(block, 148, 8)) throw new Error('corrupt tar header (bad checksum)');
    const size = number(block, 124, 12);
    const typeflag = String.fromCharCode(block[156] || 0x30);
    const dataStart = at + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > archive.length) throw new Error('truncated tar archive');
    const data = archive.subarray(dataStart, dataEnd);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeflag === 'L') {
      longName = text(data, 0, data.length);
      continue;
    }
    if (typeflag === 'K') {
      longLink = text(data, 0, data.length);
      continue;
    }
    if (typeflag === 'x') {
      const pax = paxFields(data);
      longName = pax.get('path') ?? longName;
      longLink = pax.get('linkpath') ?? longLink;
      continue;
    }
    if (typeflag === 'g') continue;
    const magic = text(block, 257, 6);
    const prefix = magic.startsWith('ustar') ? text(block, 345, 155) : '';
    const rawName = longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    const linkname = longLink ?? text(block, 157, 100);
    longName = undefined;
    longLink = undefined;
    const name = cleanName(rawName);
    const base = { name, mode: number(block, 100, 8) & 0o7777, mtime: number(block, 136, 12) };
    if (typeflag === '0' || typeflag === '\0' || typeflag === '7') entries.push({ ...base, type: 'file', data: Buffer.from(data) });
    else if (typeflag === '5') entries.push({ ...base, type: 'dir' });
    else if (typeflag === '2') entries.push({ ...base, type: 'symlink', linkname });
  }
  return entries;
}
