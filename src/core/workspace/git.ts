// Runs git for the workspace code. Contract: `git(args, opts)` runs one git command with a
// clean environment (no inherited GIT_DIR/GIT_INDEX_FILE/…, hooks off, no pager, no signing
// prompts, a fixed identity for the commits it makes) and resolves with its stdout as a
// Buffer; a non-zero exit that the caller did not list in `okCodes` rejects with a GitError
// naming the command and git's own message. `requireGit()` checks once that git exists and is
// at least 2.38 (`merge-tree --write-tree`), with one clear sentence when it is not.
import { spawn } from 'node:child_process';

export const MIN_GIT_VERSION = [2, 38] as const;

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
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
}

export interface GitResult {
  stdout: Buffer;
  exitCode: number;
}

/** Variables that would point git at another repository, index or work tree than the one asked for. */
const REPOSITORY_VARIABLES = /^GIT_(DIR|WORK_TREE|INDEX_FILE|PREFIX|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES)$/;

/** Commits the workspace code makes are the sub-agent's work: named as such, whatever the user's identity. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'opencode-ink',
  GIT_AUTHOR_EMAIL: 'opencode-ink@localhost',
  GIT_COMMITTER_NAME: 'opencode-ink',
  GIT_COMMITTER_EMAIL: 'opencode-ink@localhost',
};

function gitEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!REPOSITORY_VARIABLES.test(key)) env[key] = value;
  return { ...env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...extra };
}

/** The user's hooks (post-checkout, …) are theirs to run, not ours: every command runs without them. */
const BASE_ARGS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.quotePath=false'];

export function git(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...BASE_ARGS, ...args], { cwd: opts.cwd, env: gitEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(e.code === 'ENOENT' ? new GitError(missingGitMessage(), null) : e);
    });
    // git may exit before reading all of its input (an error): that is reported by its exit code.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
    child.on('close', (code) => {
      const exitCode = code ?? -1;
      if (exitCode === 0 || opts.okCodes?.includes(exitCode)) {
        resolve({ stdout: Buffer.concat(out), exitCode });
        return;
      }
      const message = Buffer.concat(err).toString('utf8').trim().split('\n').filter(Boolean).slice(-3).join(' ');
      reject(new GitError(`git ${args.slice(0, 2).join(' ')} failed in ${opts.cwd}: ${message || `exit code ${exitCode}`}`, exitCode));
    });
  });
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
