// The product's own control files (DESIGN §15): files whose content decides what this program
// — or git, which it runs — does next. A model that may edit freely must still not rewrite
// them unasked: a `core.fsmonitor` line in `.git/config` makes the next allowed `git status`
// run any command, a rule in `.opencoderc.json` widens every permission.
//
// Contract: `controlFileAt` tells whether writing a path writes a control file, after
// following symlinks and `..` (a file that does not exist yet is judged by where it would
// land). Protected, at any depth below the working directory (and anywhere outside it):
// `.git/`, `.opencode/`, `.claude/` (any file below them, or a file of that name),
// `.opencoderc.json`, `.mcp.json`; and anywhere in the user's config and data dirs and
// OpenCode's user folder (except, for a session working in a tree inside the data dir — a
// sub-agent's worktree — the files of that tree). `AGENTS.md` / `CLAUDE.md` are not: they are instructions people ask
// the model to maintain (both peers' `/init` writes them), and they change no permission and
// run nothing by themselves. `controlFilesOfShell` applies the same test to what a bash line
// writes through redirections and `tee`, as far as the parser sees. `controlFileGuard` gives
// the request fields that make the permission gate always ask for such a write, and the
// sentences below explain it to the user and the model.
import path from 'node:path';
import { configDir, dataDir, peerUserDirs } from '../config/paths.js';
import { displayPath, isInside, realTarget, resolvePath } from '../tools/paths.js';
import type { PermissionRequest } from '../tools/types.js';
import type { ShellAnalysis } from './bash-parse.js';

export interface ControlFileWrite {
  /** The file as `edit` rules name it: relative to the working directory, or absolute outside it (its real path). */
  path: string;
  /** What the file controls, completing "which controls …". */
  controls: string;
}

/** Folders whose every file is a control file, wherever they appear on the path. */
const CONTROL_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['.git', 'git'],
  ['.opencode', "opencode-ink's agents, commands and settings"],
  ['.claude', "Claude Code's and opencode-ink's settings, hooks and agents"],
]);

/** Files that are control files by name alone. */
const CONTROL_NAMES: ReadonlyMap<string, string> = new Map([
  ['.opencoderc.json', "opencode-ink's project configuration"],
  ['.mcp.json', 'which MCP servers start'],
]);

/** The user's own folders this program reads its settings, agents, sessions and trust from. */
function userFolders(env: NodeJS.ProcessEnv): { dir: string; controls: string; holdsWorktrees?: boolean }[] {
  return [
    { dir: configDir(env), controls: "opencode-ink's user configuration" },
    { dir: dataDir(env), controls: "opencode-ink's sessions and project trust", holdsWorktrees: true },
    { dir: peerUserDirs(env).opencode, controls: "OpenCode's and opencode-ink's user agents and instructions" },
  ];
}

/**
 * The control file that writing `target` (absolute, or relative to `cwd`) would change, or
 * undefined for an ordinary file. `env` locates the user's config and data dirs.
 */
export async function controlFileAt(target: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<ControlFileWrite | undefined> {
  const [realCwd, real] = await Promise.all([realTarget(path.resolve(cwd)), realTarget(resolvePath(cwd, target))]);
  const shown = displayPath(realCwd, real);
  const inProject = isInside(realCwd, real);
  for (const { dir, controls, holdsWorktrees } of userFolders(env)) {
    const realDir = await realTarget(path.resolve(dir));
    if (!isInside(realDir, real)) continue;
    // A session working inside the data dir (a sub-agent's worktree) may change its own tree;
    // the segment rules below still guard that tree's `.git` and settings.
    if (holdsWorktrees && inProject && isInside(realDir, realCwd) && realCwd !== realDir) continue;
    return { path: shown, controls };
  }
  // Inside the project only the part below it counts, so a project that itself lives under a
  // `.claude/worktrees/` folder is not all control files.
  const segments = (inProject ? path.relative(realCwd, real) : real).split(path.sep).filter((s) => s !== '');
  for (const segment of segments) {
    const controls = CONTROL_FOLDERS.get(segment.toLowerCase());
    if (controls) return { path: shown, controls };
  }
  const name = CONTROL_NAMES.get((segments.at(-1) ?? '').toLowerCase());
  return name ? { path: shown, controls: name } : undefined;
}

/** Programs that write the files named as their arguments, like a redirection does. */
const WRITING_PROGRAMS = new Set(['tee']);
/** Programs that change the directory later redirections resolve against. */
const DIRECTORY_CHANGERS = new Set(['cd', 'pushd']);

/**
 * The control files a parsed bash line writes through redirections (`> f`, `>> f`, `&> f`) or
 * `tee f`, resolved against the working directory and against every folder the line `cd`s
 * into (the order of a line is not followed: a false match only asks). Writes by other
 * programs (`cp`, `git config`) are not seen; rules and the sandbox govern those.
 */
export async function controlFilesOfShell(shell: ShellAnalysis, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<ControlFileWrite[]> {
  const targets = [...shell.redirectTargets];
  const bases = [cwd];
  for (const command of shell.commands) {
    const [program, ...args] = command.text.split(' ');
    const operands = args.filter((a) => a !== '' && !a.startsWith('-'));
    if (program && WRITING_PROGRAMS.has(program)) targets.push(...operands);
    if (program && DIRECTORY_CHANGERS.has(program) && operands[0]) bases.push(resolvePath(cwd, operands[0]));
  }
  const found = new Map<string, ControlFileWrite>();
  for (const target of new Set(targets)) {
    for (const base of new Set(bases)) {
      const control = await controlFileAt(resolvePath(base, target), cwd, env);
      if (control) found.set(control.path, control);
    }
  }
  return [...found.values()];
}

/** "writes .git/config, which controls git" (and more files joined with "and"). */
export function describeControlWrites(files: readonly ControlFileWrite[]): string {
  return `writes ${files.map((f) => `${f.path}, which controls ${f.controls}`).join(', and ')}`;
}

/**
 * The fields that make a permission request for these writes ask whatever the rules and
 * earlier "always" answers say (see PermissionRequest.controlFiles); empty for none.
 */
export function controlFileGuard(files: readonly ControlFileWrite[]): Pick<PermissionRequest, 'mustAsk' | 'controlFiles'> {
  if (files.length === 0) return {};
  return { mustAsk: `${describeControlWrites(files)}: always asked`, controlFiles: [...files] };
}

/** Why a control-file write was refused where nobody can answer (`run`, with or without `--yes`). */
export function unattendedRefusal(tool: string, files: readonly ControlFileWrite[], autoApprove: boolean): string {
  const what = `${tool} was refused: it ${describeControlWrites(files)}, and writes to this program's control files are always asked`;
  if (!autoApprove) return `${what}; nobody can approve it in this non-interactive run.`;
  const rule = JSON.stringify({ permission: { edit: { [files[0]!.path]: 'allow' } } });
  return `${what}; --yes does not approve them. A rule naming the exact file allows it, e.g. ${rule}.`;
}
