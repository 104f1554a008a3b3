/*
 * Snapshots of a project's working tree in a shadow git repository (DESIGN §18).
 *
 * Contract
 * - One shadow repository per project, `<data dir>/snapshots/<project key>`, used as
 *   `git --git-dir <it> --work-tree <project>`: the project's own `.git` is never touched, and
 *   the project need not be a git repository at all.
 * - `snapshot()` records every file of the tree that the project's ignore rules keep (the
 *   `.gitignore` files at any depth, the user's global excludes and the project's
 *   `.git/info/exclude`; never `.git` itself, never the data dir) and returns the id of a git
 *   tree object. Files over `max_file_mb` are left out; `onSkipped` names each of them once per
 *   process. Unchanged files cost a stat each (git's index caches them), so a snapshot with
 *   no changes is cheap: one `git ls-files` walk, and no `write-tree` when the index is still
 *   the one this process's last snapshot left (its tree is answered again).
 * - Several processes (and sub-agents of one) may snapshot at once: each call works on its own
 *   copy of the index and renames it into place at the end, so the shadow repository is never
 *   left half-written; the loser of a race only loses the stat cache of the winner.
 * - Without git, `snapshot()` resolves to undefined and `onUnavailable` gets the one line
 *   "undo is unavailable: no git" (once).
 * - A snapshot has deadlines (DESIGN §18): the walk of the tree that finds what changed
 *   (`git ls-files`, where a pathological `.gitignore` pattern can make git backtrack for
 *   minutes) gets SNAPSHOT_WALK_MS; storing the changed files, whose cost is their size, gets
 *   git's default deadline. Past one, the git process is killed and `snapshot()` rejects with a
 *   SnapshotTimeout whose message names the project and the likely cause. `snapshot(signal)`
 *   rejects with a GitError (failure "aborted") as soon as the signal aborts; the snapshot goes
 *   on for the other callers sharing it, and is stopped (its git killed, its private index
 *   removed: the shared one is untouched) once every caller has given up on it.
 * - `changes(from, to)`, `blob(id)` and `diff(from, to)` read what snapshots hold; given a set
 *   of paths, `changes` and `diff` keep to those (one session's own files, DESIGN §18).
 * - A nested git repository (a folder with its own `.git`, like a submodule) is recorded by
 *   git as a pointer to its commit, not as files, and that commit is not in the shadow
 *   repository: `changes` leaves such paths out, so restoring leaves nested repositories as
 *   they are instead of failing on them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { makePrivateDir } from '../private-files.js';
import { git, GitError } from '../workspace/git.js';
import { copyIndexFile } from '../workspace/index-copy.js';

export const NO_GIT_NOTICE = 'undo is unavailable: no git';

/** How long the walk of the project's tree may take: "a few seconds", then undo is skipped for that prompt. */
export const SNAPSHOT_WALK_MS = 5_000;

/** A snapshot that could not finish in time: its message says whose and why, for the one notice the user sees. */
export class SnapshotTimeout extends GitError {
  constructor(message: string) {
    super(message, null, 'timeout');
    this.name = 'SnapshotTimeout';
  }
}

/** A nested repository's entry (a "gitlink"): a commit id, with no content in the snapshot. */
const GITLINK_MODE = '160000';

/** Pathspecs given to one `git diff` call: far below any command-line length limit. */
const PATHSPECS_PER_CALL = 500;

/** The empty tree's id: the "before" of a file that did not exist. */
const NULL_ID = /^0+$/;

export interface ShadowRepoOptions {
  /** Where the snapshots of every project live (`<data dir>/snapshots`). */
  root: string;
  /** The project's top folder: what is snapshotted. */
  project: string;
  maxFileMb: number;
  /** Told once per file, the first time a snapshot leaves it out for its size. */
  onSkipped?: (line: string) => void;
  /** Told once, when git cannot be run. */
  onUnavailable?: (line: string) => void;
}

/** One side of a changed path between two snapshots; `undefined` when the path is absent there. */
export interface Side {
  mode: string;
  blob: string;
}

export interface PathChange {
  path: string;
  from: Side | undefined;
  to: Side | undefined;
}

export class ShadowRepo {
  readonly gitDir: string;
  readonly project: string;
  private ready: Promise<boolean> | undefined;
  private readonly named = new Set<string>();
  private unavailableTold = false;
  /** The snapshot being taken now, and the one that will follow it for callers who came meanwhile. */
  private current: Round | undefined;
  private next: Round | undefined;
  /** The tree this process's last snapshot wrote, and the identity of the index it left. */
  private last: { tree: string; index: string } | undefined;

  constructor(private readonly options: ShadowRepoOptions) {
    this.project = resolve(options.project);
    this.gitDir = join(options.root, projectKey(this.project));
  }

  /**
   * The tree id of the project's files now; undefined when snapshots cannot be taken (no git).
   * Callers who ask while one is being taken share the next one, which starts after they asked:
   * ten sub-agents starting together cost two snapshots, not ten.
   */
  snapshot(signal?: AbortSignal): Promise<string | undefined> {
    return this.wait(this.join(), signal);
  }

  /**
   * Resolves once no snapshot is being taken (never rejects). A cancelled caller stops waiting
   * at once; a snapshot nobody waits for any more is stopped. Whoever closes the program waits
   * for this so nothing writes in the data dir afterwards.
   */
  async idle(): Promise<void> {
    while (this.current || this.next) await (this.next ?? this.current)!.work.catch(() => undefined);
  }

  /** The round a caller asking now shares: the running one if none runs yet, else the one after it. */
  private join(): Round {
    if (!this.current) {
      const round = newRound();
      this.current = round;
      round.work = this.take(round.abort.signal).finally(() => {
        if (this.current === round) this.current = undefined;
      });
      round.work.catch(() => undefined); // Its callers may all have gone: not an unhandled rejection.
      return round;
    }
    if (!this.next) {
      const round = newRound();
      this.next = round;
      round.work = this.current.work
        .catch(() => undefined)
        .then(() => {
          if (this.next === round) this.next = undefined;
          if (round.abort.signal.aborted) throw cancelledError(this.project);
          this.current = round;
          return this.take(round.abort.signal);
        })
        .finally(() => {
          if (this.current === round) this.current = undefined;
        });
      round.work.catch(() => undefined);
    }
    return this.next;
  }

  /** `round`'s answer for one caller, who may give up through `signal` (the last to give up stops it). */
  private wait(round: Round, signal: AbortSignal | undefined): Promise<string | undefined> {
    if (!signal) {
      round.pinned = true;
      return round.work;
    }
    if (signal.aborted) return Promise.reject(cancelledError(this.project));
    round.waiters++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        reject(cancelledError(this.project));
        round.waiters--;
        if (round.waiters === 0 && !round.pinned) round.abort.abort();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      round.work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async take(signal: AbortSignal): Promise<string | undefined> {
    if (!(await this.prepare())) return undefined;
    const index = join(this.gitDir, 'index');
    const own = `${index}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      const indexBefore = await fileIdentity(index);
      await copyIndexFile(index, own);
      const env = { GIT_INDEX_FILE: own };
      // One walk of the tree finds what changed (git's stat cache answers for the rest);
      // only those paths are then hashed and staged.
      const changed = await this.changedPaths(env, signal);
      // Nothing changed since this process's last snapshot, whose index no one replaced since:
      // the same tree, without a `write-tree`.
      if (changed.length === 0 && this.last && indexBefore !== undefined && indexBefore === this.last.index) return this.last.tree;
      const large = await this.largeFiles(changed);
      const skip = new Set(large);
      const stage = changed.filter((path) => !skip.has(path));
      if (stage.length) await this.git(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], env, literal(stage), signal);
      if (large.length) await this.git(['rm', '--cached', '-q', '--ignore-unmatch', '--pathspec-from-file=-', '--pathspec-file-nul'], env, literal(large), signal);
      const tree = (await this.git(['write-tree'], env, undefined, signal)).toString('utf8').trim();
      // Stopped after its last git: the shared index stays as it was.
      if (signal.aborted) throw cancelledError(this.project);
      await rename(own, index);
      const written = await fileIdentity(index);
      this.last = written === undefined ? undefined : { tree, index: written };
      return tree;
    } finally {
      await rm(own, { force: true });
    }
  }

  /** Paths whose content differs between two snapshots, with each side's blob. */
  async changes(from: string, to: string, only?: ReadonlySet<string>): Promise<PathChange[]> {
    const out = (await this.git(['diff-tree', '-r', '-z', '--no-renames', from, to])).toString('utf8');
    const fields = out.split('\0');
    const changes: PathChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const meta = fields[i]!.replace(/^:/, '').split(' ');
      const path = fields[i + 1]!;
      if (meta.length < 5) continue;
      const [fromMode, toMode, fromBlob, toBlob] = meta as [string, string, string, string];
      if (fromMode === GITLINK_MODE || toMode === GITLINK_MODE) continue;
      if (only && !only.has(path)) continue;
      changes.push({
        path,
        from: NULL_ID.test(fromBlob) ? undefined : { mode: fromMode, blob: fromBlob },
        to: NULL_ID.test(toBlob) ? undefined : { mode: toMode, blob: toBlob },
      });
    }
    return changes;
  }

  async blob(id: string): Promise<Buffer> {
    return this.git(['cat-file', 'blob', id]);
  }

  /** The unified diff from one snapshot to another (paths as `a/…` and `b/…`), of `only` those paths when given. */
  async diff(from: string, to: string, only?: ReadonlySet<string>): Promise<string> {
    const args = ['diff', '--no-color', '--no-renames', '--no-ext-diff', '--no-textconv', from, to];
    if (!only) return (await this.git(args)).toString('utf8');
    // Only the paths that differ go on the command line, in bounded groups, in git's path order.
    const paths = (await this.changes(from, to, only)).map((c) => c.path);
    let out = '';
    for (let i = 0; i < paths.length; i += PATHSPECS_PER_CALL) {
      const group = paths.slice(i, i + PATHSPECS_PER_CALL).map((path) => `:(literal,top)${path}`);
      out += (await this.git([...args, '--', ...group])).toString('utf8');
    }
    return out;
  }

  /** Runs `git merge-file` on three files: writes the merge into `ours`; false when they overlap. */
  async mergeFile(ours: string, base: string, theirs: string): Promise<boolean> {
    // Run against the shadow repository: the project's own `.git` plays no part in it.
    const { exitCode } = await git(this.args(['merge-file', '-q', ours, base, theirs]), { cwd: this.project, okCodes: range(1, 127), ownRepository: true });
    return exitCode === 0;
  }

  private async git(args: readonly string[], env?: Record<string, string>, input?: string, signal?: AbortSignal): Promise<Buffer> {
    const opts = { cwd: this.project, ownRepository: true, ...(env ? { env } : {}), ...(input !== undefined ? { input } : {}), ...(signal ? { signal } : {}) };
    return (await git(this.args(args), opts)).stdout;
  }

  /** New, changed and deleted paths since the index's last snapshot, from the top. */
  private async changedPaths(env: Record<string, string>, signal: AbortSignal): Promise<string[]> {
    const args = this.args(['ls-files', '-z', '--others', '--modified', '--deleted', '--exclude-standard', '--full-name']);
    const out = await git(args, { cwd: this.project, env, ownRepository: true, timeoutMs: SNAPSHOT_WALK_MS, doing: `listing the files of ${this.project}`, signal }).then(
      (result) => result.stdout,
      (err: unknown) => {
        if (!(err instanceof GitError) || err.failure !== 'timeout') throw err;
        throw new SnapshotTimeout(`the snapshot of ${this.project} took longer than ${SNAPSHOT_WALK_MS / 1000} s (a .gitignore pattern may be very slow)`);
      },
    );
    return [...new Set(out.toString('utf8').split('\0').filter(Boolean))];
  }

  private args(args: readonly string[]): string[] {
    return ['--git-dir', this.gitDir, '--work-tree', this.project, ...args];
  }

  /** Creates the shadow repository once; false (told once) when git cannot run. */
  private prepare(): Promise<boolean> {
    this.ready ??= this.init().catch((err: unknown) => {
      this.ready = undefined;
      if (err instanceof GitError && err.failure === 'missing') {
        if (!this.unavailableTold) this.options.onUnavailable?.(NO_GIT_NOTICE);
        this.unavailableTold = true;
        return false;
      }
      throw err;
    });
    return this.ready;
  }

  private async init(): Promise<boolean> {
    makePrivateDir(this.options.root);
    const fresh = !(await exists(join(this.gitDir, 'HEAD')));
    if (fresh) {
      // Built aside and renamed into place: several processes may create it at once, and git
      // refuses a `config` write while another holds the config's lock.
      const building = `${this.gitDir}.new-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        await git(['init', '-q', '--bare', building], { cwd: this.options.root });
        for (const [key, value] of [
          ['core.bare', 'false'],
          ['core.autocrlf', 'false'],
          ['core.symlinks', 'true'],
          ['core.untrackedCache', 'true'],
          ['gc.auto', '0'],
          ['advice.addEmbeddedRepo', 'false'],
        ] as const) {
          await git(['--git-dir', building, 'config', key, value], { cwd: this.options.root });
        }
        await rename(building, this.gitDir).catch(async (err: NodeJS.ErrnoException) => {
          // Another process got there first: its repository is as good as this one.
          if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
        });
      } finally {
        await rm(building, { recursive: true, force: true });
      }
    }
    await this.writeExcludes();
    return true;
  }

  /** The project's own `info/exclude`, and the data dir when it lies inside the project. */
  private async writeExcludes(): Promise<void> {
    const lines: string[] = [];
    const own = await readFile(join(this.project, '.git', 'info', 'exclude'), 'utf8').catch(() => '');
    if (own) lines.push(own.trimEnd());
    const inside = relative(this.project, this.options.root);
    if (inside && !inside.startsWith('..') && !inside.startsWith(sep)) {
      // `<data>/snapshots` is inside: leave the whole data dir out.
      const dataDir = relative(this.project, resolve(this.options.root, '..'));
      lines.push(`/${(dataDir || basename(this.options.root)).split(sep).join('/')}/`);
    }
    makePrivateDir(join(this.gitDir, 'info'));
    await writeFile(join(this.gitDir, 'info', 'exclude'), `${lines.join('\n')}\n`, { mode: 0o600 });
  }

  /** Files among `paths` over the size limit, named once each. */
  private async largeFiles(paths: readonly string[]): Promise<string[]> {
    const limit = this.options.maxFileMb * 1024 * 1024;
    const large: string[] = [];
    for (const path of paths) {
      const stats = await lstat(join(this.project, path)).catch(() => undefined);
      if (!stats?.isFile() || stats.size <= limit) continue;
      large.push(path);
      if (!this.named.has(path)) {
        this.named.add(path);
        this.options.onSkipped?.(`${path} is left out of undo snapshots: it is over checkpoints.max_file_mb (${this.options.maxFileMb} MB).`);
      }
    }
    return large;
  }
}

/** One snapshot and who waits for it: callers with a signal are counted; one without pins it. */
interface Round {
  work: Promise<string | undefined>;
  abort: AbortController;
  waiters: number;
  pinned: boolean;
}

function newRound(): Round {
  return { work: Promise.resolve(undefined), abort: new AbortController(), waiters: 0, pinned: false };
}

function cancelledError(project: string): GitError {
  return new GitError(`the snapshot of ${project} was cancelled.`, null, 'aborted');
}

/** Paths as git pathspecs that match exactly that path (no globbing), NUL-separated. */
function literal(paths: readonly string[]): string {
  return paths.map((path) => `:(literal,top)${path}`).join('\0');
}

/** A readable, unique folder name for a project: its base name and a hash of its path. */
export function projectKey(project: string): string {
  const safe = basename(project).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  return `${safe}-${createHash('sha1').update(project).digest('hex').slice(0, 12)}`;
}

/** A file's inode, size and change time: another one renamed into place (another process's snapshot) differs. */
async function fileIdentity(path: string): Promise<string | undefined> {
  const stats = await lstat(path, { bigint: true }).catch(() => undefined);
  return stats ? `${stats.ino}:${stats.size}:${stats.ctimeNs}:${stats.mtimeNs}` : undefined;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
