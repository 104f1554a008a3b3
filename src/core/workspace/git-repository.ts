/*
 * Which git directories a git command run in a folder would use, checked before git runs there
 * (DESIGN §19). Why: a git directory may name another one through a `commondir` file (a linked
 * worktree's git dir names the main `.git` that way) or a `.git` file (`gitdir: …`), and git
 * then takes its configuration, objects and refs from wherever that points. A sandboxed command
 * can write such a file inside the project; if the program's own git followed it, the command
 * would choose the configuration the program runs with on the host.
 *
 * Contract
 * - `locateRepository(cwd)` finds the git directory git's own discovery would use from `cwd`
 *   (the nearest `.git` folder or file upwards, or a folder that is itself a git directory) and
 *   validates every indirection on the way; undefined when there is none (git then runs
 *   outside any repository).
 * - `checkGitDir(dir)` validates a git directory named explicitly (`--git-dir`).
 * - What is accepted: a git directory with no `commondir` file; or a `.git` file whose
 *   `gitdir:` names `<common>/worktrees/<name>`, whose own `gitdir` file points back at that
 *   very `.git` file, and whose `commondir` resolves to `<common>`, itself a git directory with
 *   no `commondir`. Anything else throws a RepositoryRefusal naming the file, and git is not run.
 * - Only the file system is read (a few small files): nothing is executed.
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** The git directories a command will use: its own and the shared one (the same for a main working tree). */
export interface GitDirs {
  /** This working tree's git dir (`.git`, or `<common>/worktrees/<name>`). */
  gitDir: string;
  /** The shared git dir: configuration, objects and refs. */
  commonDir: string;
}

/** A repository layout the program will not run git in: one sentence naming the file. */
export class RepositoryRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepositoryRefusal';
  }
}

export async function locateRepository(cwd: string): Promise<GitDirs | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    const dotGit = join(dir, '.git');
    const entry = await stat(dotGit).catch(() => undefined);
    if (entry?.isFile()) return checkGitFile(dotGit);
    if (entry?.isDirectory() && (await looksLikeGitDir(dotGit))) return checkGitDir(dotGit);
    if (await looksLikeGitDir(dir)) return checkGitDir(dir);
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** A git directory used as it is: it must not send git anywhere else. */
export async function checkGitDir(dir: string): Promise<GitDirs> {
  const commondir = join(dir, 'commondir');
  if (await present(commondir)) {
    throw new RepositoryRefusal(`${commondir} exists: a repository's own git directory must not name another one, so git is not run there.`);
  }
  return { gitDir: dir, commonDir: dir };
}

/** A linked worktree's `.git` file, and the two files that must agree with it. */
async function checkGitFile(file: string): Promise<GitDirs> {
  const refuse = (what: string): never => {
    throw new RepositoryRefusal(`${file} ${what}, so git is not run there.`);
  };
  const pointer = /^gitdir: (.+)\n?$/.exec(await readFile(file, 'utf8').catch(() => ''))?.[1];
  if (!pointer) refuse('is not a "gitdir: <path>" line');
  const gitDir = await realpath(resolve(dirname(file), pointer!)).catch(() => refuse(`names ${pointer}, which does not exist`));
  const commonDir = dirname(dirname(gitDir));
  if (basename(dirname(gitDir)) !== 'worktrees') refuse(`names ${gitDir}, which is not a linked worktree's git directory (<repository>/worktrees/<name>)`);
  const refuseLink = (link: string, what: string): never => {
    throw new RepositoryRefusal(`${join(gitDir, link)} (the git directory ${file} names) ${what}, so git is not run there.`);
  };
  const back = (await readFile(join(gitDir, 'gitdir'), 'utf8').catch(() => '')).trim();
  const backReal = back ? await realpath(isAbsolute(back) ? back : resolve(gitDir, back)).catch(() => '') : '';
  if (backReal !== (await realpath(file))) refuseLink('gitdir', `does not point back at ${file}`);
  const common = (await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  const commonReal = common ? await realpath(resolve(gitDir, common)).catch(() => '') : '';
  if (commonReal !== commonDir) refuseLink('commondir', `does not lead to ${commonDir}, the repository that holds it`);
  if (!(await looksLikeGitDir(commonDir))) refuse(`names ${gitDir}, but ${commonDir} is not a git directory`);
  await checkGitDir(commonDir);
  return { gitDir, commonDir };
}

/** What git itself asks of a git directory: HEAD, objects and refs (the last two possibly through commondir, which is checked apart). */
async function looksLikeGitDir(dir: string): Promise<boolean> {
  if (!(await present(join(dir, 'HEAD')))) return false;
  if (await present(join(dir, 'commondir'))) return true;
  return (await present(join(dir, 'objects'))) && (await present(join(dir, 'refs')));
}

async function present(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
