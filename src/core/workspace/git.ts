/*
 * The one way the program runs git on the host (DESIGN §19). Every git process it starts goes
 * through `git()` here; nothing else spawns git. The callers, and what they run:
 * - checkpoints/shadow-repo.ts — undo snapshots in a shadow repository of the data dir
 *   (`--git-dir <shadow> --work-tree <project>`): init, config, ls-files, add, rm, write-tree,
 *   diff-tree, diff, cat-file, merge-file (undo, redo, rewind, `sessions diff`, diff stats).
 * - workspace/repo.ts — the working tree of an isolated sub-agent's parent and child:
 *   rev-parse, add and write-tree through a copy of the index, commit-tree, diff-tree.
 * - workspace/worktree.ts — worktree add/remove/prune, show-ref, update-ref (branches
 *   `opencode/<child id>`), read-tree (checking out a new child's worktree).
 * - workspace/worktree-pool.ts — ls-files, update-index, read-tree and clean in a new child's
 *   worktree made from a finished child's files.
 * - workspace/merge.ts and tree-apply.ts — merge-tree, diff-tree, hash-object, cat-file
 *   (bringing a child's work back).
 * - workspace/warm-index.ts — update-index --refresh on a private copy of a child's index.
 * - sandbox/planted-repos.ts — `rm --cached` of a submodule entry a sandboxed command added
 *   whose folder holds a repository of its own (`git status` would run its config).
 * - requireGit() below — `git version`; listConfigFile() below — `git config --file <f> --list`
 *   outside any repository, to find a repository's drivers (git-drivers.ts).
 * Nothing else in src spawns git: project detection and the file index read the file system,
 * `sessions diff` and diff stats go through the shadow repository, and the git commands the
 * model runs are the bash tool's (sandboxed when the sandbox is on), not the program's.
 *
 * Contract
 * - `git(args, opts)` resolves with stdout as a Buffer; a non-zero exit not listed in `okCodes`
 *   rejects with a GitError naming the command and git's own message.
 * - The environment is clean: no inherited GIT_DIR/GIT_INDEX_FILE/… (nothing may point git at
 *   another repository), no inherited GIT_CONFIG_COUNT entries, GIT_EXTERNAL_DIFF dropped; a
 *   fixed identity for the commits it makes; no terminal prompts.
 * - Hardened invocation, whatever any configuration says: `--no-pager`, and
 *   `core.fsmonitor=false`, `core.hooksPath=/dev/null`, `core.pager=cat`, `diff.external=`,
 *   `commit.gpgSign=false`, `tag.gpgSign=false`, `credential.helper=`, `core.askPass=`,
 *   `protocol.allow=never` (no transport at all, so no `core.sshCommand`, `core.gitProxy`,
 *   `core.alternateRefsCommand` or upload/receive hooks), `gc.auto=0`,
 *   `maintenance.auto=false`, `submodule.recurse=false` (and, for speed, `core.preloadIndex=false`,
 *   `index.threads=1`) — given as command-line configuration
 *   (GIT_CONFIG_COUNT), which outranks every configuration file. Diff callers also pass
 *   `--no-ext-diff --no-textconv`.
 * - The repository's own drivers (filters, merge and diff drivers, in its config files and
 *   whatever they include) are switched off by name (git-drivers.ts). The user's global and
 *   system configuration stay the user's choice: a filter defined there (git-lfs) still runs.
 * - Before git runs in a repository, the git directory it will use is located and validated
 *   (git-repository.ts): an unvalidated `commondir` or `gitdir` indirection is refused with a
 *   GitError naming the file, and git is not run.
 * - Each git process is started through process-relay.ts (from a small shell on Linux, so that
 *   the fork does not copy this process), in a process group of its own.
 * - Every call has a deadline (`timeoutMs`, default 60 s): the process (and its process group)
 *   is killed when it expires and the GitError says it took longer than N s and what it was
 *   doing (`doing`). An AbortSignal (`signal`) kills it the same way.
 * - `requireGit()` checks once that git exists and is at least 2.38 (`merge-tree
 *   --write-tree`), with one clear sentence when it is not.
 */
import { resolve } from 'node:path';
import { driverOverrides, type ConfigEntry } from './git-drivers.js';
import { checkGitDir, locateRepository, RepositoryRefusal, type GitDirs } from './git-repository.js';
import { startProgram } from '../process-relay.js';

export const MIN_GIT_VERSION = [2, 38] as const;

/** How long a git call may take unless its caller says otherwise. */
export const DEFAULT_GIT_TIMEOUT_MS = 60_000;

/** Why a git call failed: git said no, it ran out of time, it was cancelled, the repository was refused before it ran, or there is no git. */
export type GitFailure = 'failed' | 'timeout' | 'aborted' | 'refused' | 'missing';

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly failure: GitFailure = 'failed',
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  cwd: string;
  /** Extra environment, e.g. GIT_INDEX_FILE for a temporary index. */
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Exit codes that are answers rather than failures (merge-tree: 1 = conflicts). */
  okCodes?: readonly number[];
  /** Milliseconds before the process is killed (DEFAULT_GIT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** What the call is for, in the deadline's message: "merging the sub-agent's work". */
  doing?: string;
  /** Kills the process when aborted. */
  signal?: AbortSignal;
  /**
   * The repository is this program's own shadow repository (data dir, hidden from every
   * sandbox): its config is written by the program and defines no driver, so it is not read
   * for drivers (saves a git process on the prompt's path). Still hardened and validated.
   */
  ownRepository?: boolean;
}

export interface GitResult {
  stdout: Buffer;
  exitCode: number;
}

/** Variables that would point git at another repository, index or work tree than the one asked for, or add configuration. */
const DROPPED_VARIABLES =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|PREFIX|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|EXTERNAL_DIFF)$/;

/** Commits the workspace code makes are the sub-agent's work: named as such, whatever the user's identity. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'opencode-ink',
  GIT_AUTHOR_EMAIL: 'opencode-ink@localhost',
  GIT_COMMITTER_NAME: 'opencode-ink',
  GIT_COMMITTER_EMAIL: 'opencode-ink@localhost',
};

/** Configuration every call runs with, above every configuration file (see the module comment). */
const HARDENED: readonly ConfigEntry[] = [
  ['core.fsmonitor', 'false'],
  // The user's hooks (post-checkout, …) are theirs to run, not ours.
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.quotePath', 'false'],
  ['diff.external', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['credential.helper', ''],
  ['core.askPass', ''],
  ['protocol.allow', 'never'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['submodule.recurse', 'false'],
  // Speed, not safety: the program's git calls run many at once (ten isolated children), where
  // threads that stat the index's files in parallel only add work; one call alone is no slower.
  ['core.preloadIndex', 'false'],
  ['index.threads', '1'],
];

function gitEnv(config: readonly ConfigEntry[], extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!DROPPED_VARIABLES.test(key)) env[key] = value;
  const entries: Record<string, string> = { GIT_CONFIG_COUNT: String(config.length) };
  config.forEach(([key, value], i) => {
    entries[`GIT_CONFIG_KEY_${i}`] = key;
    entries[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { ...env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', LC_ALL: 'C', ...entries, ...extra };
}

/** Commands that use no repository: nothing to validate. */
const NO_REPOSITORY = new Set(['version', 'init']);

/** The git directories `args` will use from `cwd`, validated; undefined when none. */
async function repositoryOf(args: readonly string[], cwd: string): Promise<GitDirs | undefined> {
  if (args[0] === '--git-dir' && args[1]) return checkGitDir(resolve(cwd, args[1]));
  if (NO_REPOSITORY.has(args[0] ?? '')) return undefined;
  return locateRepository(cwd);
}

export async function git(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  let config: readonly ConfigEntry[] = HARDENED;
  try {
    const dirs = await repositoryOf(args, opts.cwd);
    // Setting a value (the shadow repository's own `config` calls) runs no driver: no need to read the files.
    const command = commandWords(args)[0];
    if (dirs && command !== 'config' && !opts.ownRepository) config = [...HARDENED, ...(await driverOverrides(dirs, listConfigFile))];
  } catch (err) {
    if (err instanceof RepositoryRefusal) throw new GitError(err.message, null, 'refused');
    throw err;
  }
  return run(args, opts, config);
}

/** One configuration file's own entries, NUL-separated; run outside any repository, it reads nothing else. */
async function listConfigFile(file: string): Promise<string> {
  const out = await run(['config', '--file', file, '--list', '-z'], { cwd: '/', doing: `reading ${file}`, timeoutMs: 10_000 }, HARDENED);
  return out.stdout.toString('utf8');
}

function run(args: readonly string[], opts: GitOptions, config: readonly ConfigEntry[]): Promise<GitResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const what = `git ${commandWords(args).join(' ')}`;
  const doing = opts.doing ?? `running ${what} in ${opts.cwd}`;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitError(`${what} was not run: ${doing} was cancelled.`, null, 'aborted'));
      return;
    }
    // Its own process group, so a deadline also ends what git started (a user's filter), and a
    // signal to ours does not reach it: ended with us (exit-reaper.ts), not after.
    const program = startProgram('git', ['--no-pager', ...args], { cwd: opts.cwd, env: gitEnv(config, opts.env), input: opts.input });
    let stopped: GitError | undefined;
    const stop = (error: GitError) => {
      if (stopped) return;
      stopped = error;
      program.kill();
    };
    const timer = setTimeout(() => {
      stop(new GitError(`${what} took longer than ${formatSeconds(timeoutMs)} while ${doing}, and was stopped.`, null, 'timeout'));
    }, timeoutMs);
    const onAbort = () => stop(new GitError(`${what} was stopped: ${doing} was cancelled.`, null, 'aborted'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    program.exited.then(
      ({ code, stdout, stderr }) => {
        done();
        if (stopped) {
          reject(stopped);
          return;
        }
        const exitCode = code ?? -1;
        if (exitCode === 0 || opts.okCodes?.includes(exitCode)) {
          resolve({ stdout, exitCode });
          return;
        }
        const message = stderr.toString('utf8').trim().split('\n').filter(Boolean).slice(-3).join(' ');
        reject(new GitError(`${what} failed in ${opts.cwd}: ${message || `exit code ${exitCode}`}`, exitCode));
      },
      (e: NodeJS.ErrnoException) => {
        done();
        reject(stopped ?? (e.code === 'ENOENT' ? new GitError(missingGitMessage(), null, 'missing') : e));
      },
    );
  });
}

/** The command and its first argument, for messages: `--git-dir <d>` and `--work-tree <w>` say nothing about it. */
function commandWords(args: readonly string[]): readonly string[] {
  let i = 0;
  while (args[i] === '--git-dir' || args[i] === '--work-tree') i += 2;
  return args.slice(i, i + 2);
}

function formatSeconds(ms: number): string {
  return `${Math.round((ms / 1000) * 10) / 10} s`;
}

/** stdout as trimmed text, for commands that print one value (a hash, a path). */
export async function gitText(args: readonly string[], opts: GitOptions): Promise<string> {
  return (await git(args, opts)).stdout.toString('utf8').trim();
}

function missingGitMessage(): string {
  return `git was not found on PATH; isolation "worktree" needs git ${MIN_GIT_VERSION.join('.')} or newer.`;
}

let versionCheck: Promise<void> | undefined;

/** Resolves when a recent enough git is installed; rejects with one sentence otherwise. Checked once per process. */
export function requireGit(): Promise<void> {
  versionCheck ??= gitText(['version'], { cwd: process.cwd() }).then((text) => {
    const match = /(\d+)\.(\d+)/.exec(text);
    const [major, minor] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
    const [needMajor, needMinor] = MIN_GIT_VERSION;
    if (major < needMajor || (major === needMajor && minor < needMinor)) {
      throw new GitError(`isolation "worktree" needs git ${MIN_GIT_VERSION.join('.')} or newer (for merge-tree --write-tree); found "${text}".`, null);
    }
  });
  // A failed check is not cached: git may be installed while the program runs.
  versionCheck.catch(() => (versionCheck = undefined));
  return versionCheck;
}
