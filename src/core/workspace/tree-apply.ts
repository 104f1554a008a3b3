// Writes the difference between two trees into a working tree as plain file changes. Contract:
// `applyTreeDiff(toplevel, from, to)` expects the working tree to hold `from` for every path
// that differs; it first checks that each such path still holds exactly what `from` says
// (content through git's own filters, type, and absence for new files) and, if any does not,
// writes nothing and returns those paths. Otherwise it removes deleted files (and folders
// left empty), and writes new and changed files atomically (temp file + rename in the same
// folder) with git's content filters applied and the executable bit as the tree says;
// symlinks stay symlinks. Right before each write it checks the path again and leaves alone
// any path changed in between, returning it. Never touches the index or HEAD.
// `prepareTreeDiff` + `writePreparedDiff` are the same in two halves: the first (git calls only,
// nothing written) may run for several diffs at once, the second writes.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readlink, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { git } from './git.js';

const EMPTY_MODE = '000000';
const SYMLINK = '120000';
const GITLINK = '160000';
const EXECUTABLE = '100755';

export interface Change {
  path: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

export interface ApplyResult {
  /** Paths written or removed. */
  applied: string[];
  /** Paths that no longer held what `from` says: nothing was written for them (or for anything, when found before writing). */
  changedMeanwhile: string[];
}

/** The file differences between two trees, submodules left out (they cannot be written as files). */
export async function treeChanges(toplevel: string, from: string, to: string): Promise<Change[]> {
  const out = (await git(['diff-tree', '-r', '-z', '--no-renames', from, to], { cwd: toplevel })).stdout.toString('utf8');
  const fields = out.split('\0');
  const changes: Change[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) /.exec(fields[i]!);
    const path = fields[i + 1]!;
    if (!meta || !path) continue;
    const [, oldMode, newMode, oldSha, newSha] = meta;
    if (oldMode === GITLINK || newMode === GITLINK) continue;
    changes.push({ path, oldMode: oldMode!, newMode: newMode!, oldSha: oldSha!, newSha: newSha! });
  }
  return changes;
}

export interface Seen {
  /** What was on disk when checked: compared again right before writing. */
  stamp: string;
}

/** A diff ready to be written: the parent's paths checked and the new contents read. */
export interface PreparedDiff {
  /** Every path the diff writes or removes. */
  readonly paths: readonly string[];
  /** Paths the diff removes. */
  readonly deleted: readonly string[];
  /** Paths that did not hold what `from` says when checked: a prepared diff with any is never written. */
  readonly stale: readonly string[];
  readonly changes: readonly Change[];
  readonly seen: ReadonlyMap<string, Seen>;
  readonly contents: ReadonlyMap<string, Buffer>;
}

export async function applyTreeDiff(toplevel: string, from: string, to: string): Promise<ApplyResult> {
  const prepared = await prepareTreeDiff(toplevel, from, to);
  if (prepared.stale.length > 0) return { applied: [], changedMeanwhile: [...prepared.stale] };
  return writePreparedDiff(toplevel, prepared);
}

/**
 * The first half of applyTreeDiff, which writes nothing: the diff, the check of every path it
 * touches, and the new contents. Its writes then go through writePreparedDiff, which checks
 * each path again right before writing it.
 */
export async function prepareTreeDiff(toplevel: string, from: string, to: string): Promise<PreparedDiff> {
  return (await prepareTreeDiffs(toplevel, from, [to]))[0]!;
}

/**
 * prepareTreeDiff for several results computed from one tree, in four git calls whatever their
 * number (the diffs at once, then one check of every path and one read of every new content):
 * a path two diffs share is checked once, since both expect what `from` holds there. A diff with
 * a stale path gets no contents; the others are unaffected by it.
 */
export async function prepareTreeDiffs(toplevel: string, from: string, tos: readonly string[]): Promise<PreparedDiff[]> {
  const all = await Promise.all(tos.map((to) => treeChanges(toplevel, from, to)));
  const byPath = new Map<string, Change>();
  for (const changes of all) for (const change of changes) if (!byPath.has(change.path)) byPath.set(change.path, change);
  const seen = new Map<string, Seen>();
  const stale = new Set(byPath.size > 0 ? await checkCurrent(toplevel, [...byPath.values()], seen) : []);
  const fresh = all.map((changes) => !changes.some((c) => stale.has(c.path)));
  const contents = await readBlobs(
    toplevel,
    all.flatMap((changes, i) => (fresh[i] ? changes.filter((c) => c.newMode !== EMPTY_MODE) : [])),
  );
  return all.map((changes, i) => ({
    paths: changes.map((c) => c.path),
    deleted: changes.filter((c) => c.newMode === EMPTY_MODE).map((c) => c.path),
    stale: changes.filter((c) => stale.has(c.path)).map((c) => c.path),
    changes,
    seen: new Map(changes.flatMap((c) => (seen.has(c.path) ? [[c.path, seen.get(c.path)!] as const] : []))),
    contents: new Map(fresh[i] ? changes.flatMap((c) => (contents.has(c) ? [[c.path, contents.get(c)!] as const] : [])) : []),
  }));
}

/** Writes a prepared diff whose check found nothing stale; a path changed since the check is left alone and returned. */
export async function writePreparedDiff(toplevel: string, prepared: PreparedDiff): Promise<ApplyResult> {
  const { changes, seen, contents } = prepared;
  if (prepared.stale.length > 0) return { applied: [], changedMeanwhile: [...prepared.stale] };
  const applied: string[] = [];
  const changedMeanwhile: string[] = [];
  // Deletions first: a file may give way to a folder of the same name.
  const ordered = [...changes.filter((c) => c.newMode === EMPTY_MODE), ...changes.filter((c) => c.newMode !== EMPTY_MODE)];
  for (const change of ordered) {
    const file = join(toplevel, change.path);
    if ((await stampOf(file)) !== seen.get(change.path)?.stamp) {
      changedMeanwhile.push(change.path);
      continue;
    }
    if (change.newMode === EMPTY_MODE) {
      await rm(file, { force: true });
      await removeEmptyFolders(toplevel, dirname(file));
    } else {
      await writeEntry(file, change.newMode, contents.get(change.path)!, permissionsOf(seen.get(change.path)?.stamp));
    }
    applied.push(change.path);
  }
  return { applied, changedMeanwhile };
}

/** A cheap identity of what is on disk at a path: type, size, mtime and inode, or "absent". */
async function stampOf(file: string): Promise<string> {
  try {
    const st = await lstat(file);
    return `${st.isSymbolicLink() ? 'l' : st.isFile() ? 'f' : 'o'}:${st.size}:${st.mtimeMs}:${st.ino}:${st.mode}`;
  } catch {
    return 'absent';
  }
}

/** Paths whose current content is not what `from` holds; records a stamp of each checked path. */
async function checkCurrent(toplevel: string, changes: readonly Change[], seen: Map<string, Seen>): Promise<string[]> {
  const stale: string[] = [];
  const regular: Change[] = [];
  for (const change of changes) {
    const file = join(toplevel, change.path);
    const stamp = await stampOf(file);
    seen.set(change.path, { stamp });
    if (change.oldMode === EMPTY_MODE) {
      if (stamp !== 'absent') stale.push(change.path);
    } else if (change.oldMode === SYMLINK) {
      const target = stamp.startsWith('l:') ? await readlink(file).catch(() => undefined) : undefined;
      if (target === undefined || blobSha(Buffer.from(target)) !== change.oldSha) stale.push(change.path);
    } else if (!stamp.startsWith('f:') || isExecutableStamp(stamp) !== (change.oldMode === EXECUTABLE)) {
      stale.push(change.path);
    } else {
      regular.push(change);
    }
  }
  // A path with a newline cannot go through --stdin-paths: treated as changed, so it is never overwritten blindly.
  const hashable = regular.filter((c) => !c.path.includes('\n'));
  for (const c of regular) if (c.path.includes('\n')) stale.push(c.path);
  if (hashable.length > 0) {
    const out = await git(['hash-object', '--stdin-paths'], { cwd: toplevel, input: hashable.map((c) => c.path).join('\n') + '\n' });
    const hashes = out.stdout.toString('utf8').trim().split('\n');
    hashable.forEach((c, i) => {
      if (hashes[i] !== c.oldSha) stale.push(c.path);
    });
  }
  return stale;
}

function isExecutableStamp(stamp: string): boolean {
  const mode = Number(stamp.split(':')[4]);
  return (mode & 0o100) !== 0;
}

/** git's object id of a blob with this content. */
function blobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** New contents by change: files as git would check them out (filters applied), symlink targets as stored. */
async function readBlobs(toplevel: string, changes: readonly Change[]): Promise<Map<Change, Buffer>> {
  const contents = new Map<Change, Buffer>();
  const files = changes.filter((c) => c.newMode !== SYMLINK && !c.path.includes('\n'));
  const links = changes.filter((c) => c.newMode === SYMLINK);
  if (files.length > 0) {
    const out = await git(['cat-file', '--batch', '--filters'], { cwd: toplevel, input: files.map((c) => `${c.newSha} ${c.path}`).join('\n') + '\n' });
    parseBatch(out.stdout).forEach((content, i) => contents.set(files[i]!, content));
  }
  if (links.length > 0) {
    const out = await git(['cat-file', '--batch'], { cwd: toplevel, input: links.map((c) => c.newSha).join('\n') + '\n' });
    parseBatch(out.stdout).forEach((content, i) => contents.set(links[i]!, content));
  }
  for (const c of changes) {
    if (!contents.has(c)) throw new Error(`Could not read the merged content of ${c.path}.`);
  }
  return contents;
}

/** `<sha> <type> <size>\n<content>\n`, repeated. */
function parseBatch(out: Buffer): Buffer[] {
  const contents: Buffer[] = [];
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const header = out.subarray(at, eol).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[1] === 'missing' || !Number.isFinite(size)) throw new Error(`git cat-file could not read ${header[0] ?? 'an object'}.`);
    contents.push(out.subarray(eol + 1, eol + 1 + size));
    at = eol + 1 + size + 1;
  }
  return contents;
}

/** The permission bits of the file a stamp describes, when it was a regular file. */
function permissionsOf(stamp: string | undefined): number | undefined {
  if (!stamp?.startsWith('f:')) return undefined;
  return Number(stamp.split(':')[4]) & 0o777;
}

/** A changed file keeps its own permissions (0600 stays 0600) with the executable bit the tree says. */
function fileMode(treeMode: string, existing: number | undefined): number {
  const base = existing ?? 0o644;
  if (treeMode !== EXECUTABLE) return base & ~0o111;
  // Executable for whoever may read it, as git does on checkout.
  return base | ((base & 0o444) >> 2);
}

async function writeEntry(file: string, mode: string, content: Buffer, existing: number | undefined): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.opencode-ink-${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (mode === SYMLINK) {
      await symlink(content.toString('utf8'), temp);
    } else {
      const permissions = fileMode(mode, existing);
      await writeFile(temp, content, { mode: permissions });
      // The umask may have taken bits away from a new file's mode.
      await chmod(temp, permissions);
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

async function removeEmptyFolders(toplevel: string, dir: string): Promise<void> {
  let current = dir;
  while (relative(toplevel, current) && !relative(toplevel, current).startsWith('..')) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    current = dirname(current);
  }
}
