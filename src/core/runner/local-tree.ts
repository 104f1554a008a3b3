// The workspace as this machine holds it, for the container sync (DESIGN §25). Contract:
// - `scanTree(root)` lists every file, folder and symbolic link under `root` (not following
//   links, leaving out `.git` (the repository's control files never cross, either way) and, at
//   its top, this program's and Claude Code's control files (`KEPT_HERE`);
// - `changedSince(base, now)` names what was created, changed (size, time, mode, target) or
//   deleted since `base`;
// - `writeBack(root, entry)` puts an entry a container sent at its place, refusing names that
//   leave `root` or pass through a link, so a command in a container can never write outside
//   the workspace on this machine, nor write a control file (also `AGENTS.md`, `CLAUDE.md`).
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lstat, mkdir, readFile, readlink, rename, rm, symlink, chmod, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TarEntry } from './tar.js';

export interface LocalEntry {
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  size: number;
  mtimeMs: number;
  linkname?: string;
}

export type LocalTree = Map<string, LocalEntry>;

/** Left out of the sync both ways, at any depth. */
export const NEVER_SYNCED = new Set(['.git']);

/**
 * At the workspace's top, this program's and Claude Code's project control files (DESIGN §15,
 * §19) stay on this machine: they may hold provider keys and tokens (a provider's `apiKey`,
 * settings' `env`, an MCP server's `env` or `headers`), which never enter a container, and what
 * they say runs here (hooks, MCP servers, permissions), so nothing a command in a container
 * writes may become one. Compared ignoring case, as the sandbox's guard does.
 */
const KEPT_HERE = new Set(['.opencoderc.json', '.mcp.json', '.claude', '.opencode']);

/** Copied in for the commands that read them, never copied back: the sandbox keeps them read-only too. */
const INSTRUCTIONS = new Set(['agents.md', 'claude.md']);

const keptHere = (topName: string): boolean => KEPT_HERE.has(topName.toLowerCase());

/**
 * Synchronous on purpose: it runs before every command, and thousands of threadpool round trips
 * (one `lstat` each) cost several times what the same calls cost inline (bench/container.bench.ts).
 */
export function scanTree(root: string): Promise<LocalTree> {
  const tree: LocalTree = new Map();
  const walk = (rel: string): void => {
    let names: string[];
    try {
      names = readdirSync(rel ? join(root, rel) : root);
    } catch {
      return;
    }
    for (const name of names) {
      if (NEVER_SYNCED.has(name) || (!rel && keptHere(name))) continue;
      const path = rel ? `${rel}/${name}` : name;
      const stats = lstatSync(join(root, path), { throwIfNoEntry: false });
      if (!stats) continue;
      const mode = stats.mode & 0o7777;
      if (stats.isSymbolicLink()) {
        let linkname = '';
        try {
          linkname = readlinkSync(join(root, path));
        } catch {
          // Gone meanwhile: copied as an empty link, corrected at the next sync.
        }
        tree.set(path, { type: 'symlink', mode, size: 0, mtimeMs: stats.mtimeMs, linkname });
      } else if (stats.isDirectory()) {
        tree.set(path, { type: 'dir', mode, size: 0, mtimeMs: 0 });
        walk(path);
      } else if (stats.isFile()) {
        tree.set(path, { type: 'file', mode, size: stats.size, mtimeMs: stats.mtimeMs });
      }
    }
  };
  try {
    walk('');
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  return Promise.resolve(tree);
}

/** One entry as this machine holds it now; undefined when it is gone or not a file, folder or link. */
export async function entryAt(root: string, rel: string): Promise<LocalEntry | undefined> {
  const path = join(root, ...rel.split('/'));
  const stats = await lstat(path).catch(() => undefined);
  if (!stats) return undefined;
  const mode = stats.mode & 0o7777;
  if (stats.isSymbolicLink()) return { type: 'symlink', mode, size: 0, mtimeMs: stats.mtimeMs, linkname: await readlink(path).catch(() => '') };
  if (stats.isDirectory()) return { type: 'dir', mode, size: 0, mtimeMs: 0 };
  if (stats.isFile()) return { type: 'file', mode, size: stats.size, mtimeMs: stats.mtimeMs };
  return undefined;
}

const same = (a: LocalEntry, b: LocalEntry): boolean =>
  a.type === b.type && a.mode === b.mode && a.size === b.size && a.mtimeMs === b.mtimeMs && a.linkname === b.linkname;

export function changedSince(base: LocalTree, now: LocalTree): { changed: string[]; deleted: string[] } {
  const changed: string[] = [];
  for (const [path, entry] of now) {
    const before = base.get(path);
    if (!before || !same(before, entry)) changed.push(path);
  }
  const deleted = [...base.keys()].filter((path) => !now.has(path));
  // A deleted folder's contents need no removal of their own.
  const gone = new Set(deleted);
  return { changed: changed.sort(), deleted: deleted.filter((path) => !hasAncestorIn(path, gone)).sort() };
}

function parentOf(path: string): string | undefined {
  const at = path.lastIndexOf('/');
  return at === -1 ? undefined : path.slice(0, at);
}

function hasAncestorIn(path: string, set: ReadonlySet<string>): boolean {
  for (let parent = parentOf(path); parent !== undefined; parent = parentOf(parent)) if (set.has(parent)) return true;
  return false;
}

/** Files read inline between two turns of the event loop (see `readEntries`). */
const READS_PER_SLICE = 256;

/**
 * The archive entries for `paths` (relative), read from this machine; vanished ones are skipped.
 * Files are read inline, a slice at a time: a first copy-in reads thousands of small files, and
 * one thread-pool round trip each cost ~1 s for 5,000 where inline reads take a tenth of that
 * (bench/RESULTS.md); yielding between slices keeps the program answering meanwhile.
 */
export async function readEntries(root: string, tree: LocalTree, paths: readonly string[]): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  let sinceYield = 0;
  for (const path of paths) {
    if (++sinceYield > READS_PER_SLICE) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const entry = tree.get(path);
    if (!entry) continue;
    const mtime = Math.floor(entry.mtimeMs / 1000);
    if (entry.type === 'dir') entries.push({ name: path, type: 'dir', mode: entry.mode, mtime });
    else if (entry.type === 'symlink') entries.push({ name: path, type: 'symlink', mode: entry.mode, mtime, linkname: entry.linkname ?? '' });
    else {
      let data: Buffer | undefined;
      try {
        data = readFileSync(join(root, path));
      } catch {
        // Gone or unreadable meanwhile: skipped, as the scan will tell at the next sync.
      }
      if (data) entries.push({ name: path, type: 'file', mode: entry.mode, mtime, data });
    }
  }
  return entries;
}

/** Why `rel` may not be written under `root`, or undefined when it may. */
async function unsafeTarget(root: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/');
  if (!rel || rel.startsWith('/') || parts.some((part) => part === '..' || part === '.' || part === '' || part.includes('\0'))) return 'its name leaves the workspace';
  if (parts.some((part) => NEVER_SYNCED.has(part))) return 'the repository control files are never copied back';
  const top = parts[0]!;
  if (keptHere(top) || (parts.length === 1 && INSTRUCTIONS.has(top.toLowerCase()))) {
    return "this program's and Claude Code's control files are never copied back (what they say runs on this machine)";
  }
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    const stats = await lstat(at).catch(() => undefined);
    if (!stats) return undefined;
    if (!stats.isDirectory()) return `${at.slice(root.length + 1)} is not a folder here`;
  }
  return undefined;
}

/** Writes one entry a container sent; a string saying why it was not written, or undefined. */
export async function writeBack(root: string, entry: TarEntry): Promise<string | undefined> {
  const why = await unsafeTarget(root, entry.name);
  if (why) return `${entry.name}: ${why}`;
  const target = join(root, ...entry.name.split('/'));
  await mkdir(dirname(target), { recursive: true });
  const existing = await lstat(target).catch(() => undefined);
  if (entry.type === 'dir') {
    if (existing && !existing.isDirectory()) await rm(target, { recursive: true, force: true });
    if (!existing || !existing.isDirectory()) await mkdir(target);
    await chmod(target, entry.mode);
    return undefined;
  }
  if (entry.type === 'symlink') {
    if (existing?.isSymbolicLink() && (await readlink(target).catch(() => undefined)) === entry.linkname) return undefined;
    if (existing) await rm(target, { recursive: true, force: true });
    await symlink(entry.linkname ?? '', target);
    return undefined;
  }
  const data = entry.data ?? Buffer.alloc(0);
  if (existing?.isFile() && (existing.mode & 0o7777) === entry.mode && existing.size === data.length) {
    const current = await readFile(target).catch(() => undefined);
    if (current?.equals(data)) return undefined;
  }
  if (existing && !existing.isFile()) await rm(target, { recursive: true, force: true });
  // A reader never sees half a file (DESIGN §17): a temp file beside it, then a rename.
  const temp = `${target}.${process.pid}.${Date.now()}.oc-sync`;
  await writeFile(temp, data, { mode: entry.mode });
  await chmod(temp, entry.mode);
  await rename(temp, target);
  return undefined;
}

/** Removes what a command deleted in its container; refuses names that leave the workspace. */
export async function removeBack(root: string, rel: string): Promise<string | undefined> {
  const why = await unsafeTarget(root, rel);
  if (why) return `${rel}: ${why}`;
  await rm(join(root, ...rel.split('/')), { recursive: true, force: true });
  return undefined;
}
