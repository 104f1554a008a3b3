/*
 * Puts project files back from snapshots without ever destroying work done since (DESIGN §18).
 *
 * Contract: `restoreFiles(repo, base, target)` moves the project's files from snapshot `base`
 * (the state the agent left) to snapshot `target` (the state to go back — or forward — to),
 * three-way against what the disk holds now, for every path that differs between the two:
 * - disk == base: the path takes target's content, mode, or absence;
 * - disk == target already: nothing to do;
 * - otherwise (changed since, by the user, a formatter, another session): `git merge-file`
 *   keeps those changes where they do not overlap; an overlap, or a change that cannot be
 *   merged as text (a file created or deleted on one side and changed on the other), is a
 *   conflict.
 * - a path whose folder is no longer a real folder of the project — replaced by a symbolic
 *   link (to `~`, say) or by a file — is a conflict too: a restore never reads, writes or
 *   deletes through a link, so it never touches anything outside the project.
 * Given `only`, paths outside it are left as they are (a session's revert keeps to the files it
 * changed itself when others worked in the same tree at the same time).
 * Everything is decided before anything is written: with any conflict nothing changes and the
 * answer names the conflicting files. Writes are atomic (temp file + rename) and only happen
 * if the file is still what was read a moment before.
 */
import { lstat, mkdtemp, readFile, readlink, rm, rmdir, symlink, unlink, writeFile, chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { replaceFile, type Expectation } from '../workspace/atomic-write.js';
import { sha256 } from '../workspace/file-views.js';
import type { PathChange, ShadowRepo, Side } from './shadow-repo.js';

export type RestoreResult = { kind: 'restored'; files: string[] } | { kind: 'conflict'; files: string[] };

const SYMLINK_MODE = '120000';
const EXECUTABLE_MODE = '100755';

/** What the disk holds at a path now. */
type DiskState = { kind: 'absent' } | { kind: 'file'; content: Buffer; executable: boolean } | { kind: 'link'; target: string } | { kind: 'other' };

/** What will be written at a path. */
type Step = { path: string; expected: DiskState } & ({ write: 'absent' } | { write: 'file'; content: Buffer; mode: string });

export async function restoreFiles(repo: ShadowRepo, base: string, target: string, only?: ReadonlySet<string>): Promise<RestoreResult> {
  if (base === target) return { kind: 'restored', files: [] };
  const steps: Step[] = [];
  const conflicts: string[] = [];
  for (const change of await repo.changes(base, target, only)) {
    const step = await planPath(repo, change);
    if (step === 'conflict') conflicts.push(change.path);
    else if (step) steps.push(step);
  }
  if (conflicts.length) return { kind: 'conflict', files: conflicts };
  for (const step of steps) await apply(repo.project, step);
  return { kind: 'restored', files: steps.map((s) => s.path) };
}

async function planPath(repo: ShadowRepo, change: PathChange): Promise<Step | 'conflict' | undefined> {
  if (await leavesProject(repo.project, change.path)) return 'conflict';
  const disk = await readDisk(join(repo.project, change.path));
  const base = await sideContent(repo, change.from);
  const target = await sideContent(repo, change.to);
  if (sameAs(disk, change.from, base)) {
    return change.to && target ? { path: change.path, expected: disk, write: 'file', content: target, mode: change.to.mode } : { path: change.path, expected: disk, write: 'absent' };
  }
  if (sameAs(disk, change.to, target)) return undefined;
  // Changed since: merge as text when all three are regular files.
  if (disk.kind !== 'file' || !base || !target || change.from?.mode === SYMLINK_MODE || change.to?.mode === SYMLINK_MODE) return 'conflict';
  const merged = await mergeText(repo, disk.content, base, target);
  if (merged === undefined) return 'conflict';
  return { path: change.path, expected: disk, write: 'file', content: merged, mode: disk.executable ? EXECUTABLE_MODE : change.to!.mode };
}

async function sideContent(repo: ShadowRepo, side: Side | undefined): Promise<Buffer | undefined> {
  return side ? repo.blob(side.blob) : undefined;
}

function sameAs(disk: DiskState, side: Side | undefined, content: Buffer | undefined): boolean {
  if (!side || content === undefined) return disk.kind === 'absent';
  if (side.mode === SYMLINK_MODE) return disk.kind === 'link' && disk.target === content.toString('utf8');
  return disk.kind === 'file' && disk.content.equals(content);
}

async function readDisk(path: string): Promise<DiskState> {
  const stats = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (!stats) return { kind: 'absent' };
  if (stats.isSymbolicLink()) return { kind: 'link', target: await readlink(path) };
  if (stats.isFile()) return { kind: 'file', content: await readFile(path), executable: (stats.mode & 0o111) !== 0 };
  return { kind: 'other' };
}

/** Three-way text merge (ours = disk, theirs = target); undefined when the changes overlap. */
async function mergeText(repo: ShadowRepo, ours: Buffer, base: Buffer, theirs: Buffer): Promise<Buffer | undefined> {
  const dir = await mkdtemp(join(tmpdir(), 'opencode-ink-merge-'));
  try {
    const files = { ours: join(dir, 'ours'), base: join(dir, 'base'), theirs: join(dir, 'theirs') };
    await Promise.all([writeFile(files.ours, ours, { mode: 0o600 }), writeFile(files.base, base, { mode: 0o600 }), writeFile(files.theirs, theirs, { mode: 0o600 })]);
    if (!(await repo.mergeFile(files.ours, files.base, files.theirs))) return undefined;
    return await readFile(files.ours);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Whether one of the folders above `path` (relative to the project) is now a symbolic link
 * or something other than a folder: then joining the path would lead elsewhere. A missing
 * folder is fine (it is created inside the project).
 */
async function leavesProject(project: string, path: string): Promise<boolean> {
  const parts = path.split('/').slice(0, -1);
  let dir = project;
  for (const part of parts) {
    dir = join(dir, part);
    const stats = await lstat(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!stats) return false;
    if (!stats.isDirectory()) return true;
  }
  return false;
}

async function apply(project: string, step: Step): Promise<void> {
  const path = join(project, step.path);
  // Checked again right before writing: a link put in place since planning is not followed either.
  if (await leavesProject(project, step.path)) throw new Error(`${step.path} was not restored: a folder above it became a symbolic link or a file while restoring.`);
  if (step.write === 'absent') {
    if (step.expected.kind !== 'absent') await unlink(path);
    await removeEmptyParents(project, dirname(path));
    return;
  }
  await mkdir(dirname(path), { recursive: true });
  if (step.mode === SYMLINK_MODE) {
    if (step.expected.kind !== 'absent') await unlink(path);
    await symlink(step.content.toString('utf8'), path);
    return;
  }
  if (step.expected.kind === 'link' || step.expected.kind === 'other') await rm(path, { recursive: true, force: true });
  const expected: Expectation = step.expected.kind === 'file' ? { kind: 'content', sha256: sha256(step.expected.content) } : { kind: 'absent' };
  const written = await replaceFile(path, step.content, expected, step.path);
  // Only the executable bits follow the snapshot; the rest of the file's mode stays the user's.
  const mode = written.mode & 0o777;
  const wanted = step.mode === EXECUTABLE_MODE ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
  if (wanted !== mode) await chmod(path, wanted);
}

/** Folders a restore emptied (a new file's folder) go too, up to the project's top. */
async function removeEmptyParents(project: string, dir: string): Promise<void> {
  while (dir.length > project.length && dir.startsWith(project)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}
