// The submodule entries ("gitlinks", mode 160000) of a git index file, read without running
// git (DESIGN §19). Why: `git status` recurses into every gitlink's folder and runs git there,
// with *that* repository's config — so a repository a sandboxed command creates inside the
// project and adds to the index (`git init sub && … && git add sub`) would run its
// `core.fsmonitor` on the host at the user's next `git status`. The sandbox reads the gitlinks
// before and after each command: the git dirs of existing ones join the control surface, and
// new ones whose folder holds its own repository are taken out of the index again.
//
// Contract: `gitlinksOf(indexFile, hashBytes)` returns the paths of the index's gitlink
// entries (index versions 2, 3 and 4), or [] for a missing or unreadable file, and never
// throws; results are kept per file while its inode, size and modification time stay the same.
// Format: Documentation/gitformat-index.txt in git's sources (read, not copied).
import { readFileSync, statSync } from 'node:fs';

const GITLINK_MODE = 0o160000;
const MODE_TYPE_MASK = 0o170000;
/** ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 bytes each). */
const STAT_BYTES = 40;
const EXTENDED_FLAG = 0x4000;

const cache = new Map<string, { key: string; links: string[] }>();

/** `objectFormat = sha256` repositories use 32-byte object ids in the index, others 20. */
export function hashBytesOf(gitConfigText: string): number {
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(gitConfigText) ? 32 : 20;
}

export function gitlinksOf(indexFile: string, hashBytes = 20): string[] {
  let key: string;
  try {
    const stat = statSync(indexFile);
    key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${hashBytes}`;
  } catch {
    return [];
  }
  const cached = cache.get(indexFile);
  if (cached?.key === key) return cached.links;
  let links: string[];
  try {
    links = parseGitlinks(readFileSync(indexFile), hashBytes);
  } catch {
    links = [];
  }
  cache.set(indexFile, { key, links });
  return links;
}

/** The gitlink paths of an index file's bytes; throws on a file that is not an index. */
export function parseGitlinks(data: Buffer, hashBytes: number): string[] {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not a git index');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Error(`index version ${version}`);
  const count = data.readUInt32BE(8);
  const links: string[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = offset;
    const mode = data.readUInt32BE(start + 24);
    offset = start + STAT_BYTES + hashBytes;
    const flags = data.readUInt16BE(offset);
    offset += 2;
    if (version >= 3 && flags & EXTENDED_FLAG) offset += 2;
    let path: Buffer;
    if (version === 4) {
      // A varint of how many bytes to drop from the previous path, then the rest, NUL-terminated.
      let byte = data[offset++]!;
      let strip = byte & 127;
      while (byte & 128) {
        byte = data[offset++]!;
        strip = ((strip + 1) << 7) | (byte & 127);
      }
      const end = data.indexOf(0, offset);
      if (end < 0 || strip > previous.length) throw new Error('truncated index');
      path = Buffer.concat([previous.subarray(0, previous.length - strip), data.subarray(offset, end)]);
      offset = end + 1;
    } else {
      const end = data.indexOf(0, offset);
      if (end < 0) throw new Error('truncated index');
      path = data.subarray(offset, end);
      // Entries are padded with 1–8 NULs to a multiple of eight bytes.
      offset = start + ((end - start + 8) & ~7);
    }
    previous = path;
    if ((mode & MODE_TYPE_MASK) === GITLINK_MODE) links.push(path.toString('utf8'));
  }
  return links;
}
