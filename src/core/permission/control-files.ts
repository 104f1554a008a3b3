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
// run nothing by themselves. Names are compared ignoring case on every system: on the
// case-insensitive file systems of macOS and Windows `.Claude/settings.json` is the settings
// file, and on Linux a false match only asks. `controlFilesOfShell` applies the same test to
// what a bash line writes through redirections, `tee`, `cp`/`mv`/`ln`/`rm`/`chmod`/`sed -i`…,
// `dd of=` and `git config`, as far as the parser sees, a name only the running line knows
// (a glob, a variable) matching every control file it could spell. `controlFileGuard` gives
// the request fields that make the permission gate always ask for such a write, whatever the
// rules, earlier "always" answers, a PreToolUse hook's `allow`, `--yes` or a sandbox's
// auto-allow say (only an `edit` rule naming the exact file passes it), and the sentences
// below explain it to the user and the model.
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
  /**
   * The command spells the name with a glob, a variable or a command substitution, so `path`
   * is that spelling and the file is only one the line may write: no rule or earlier answer
   * can name it exactly.
   */
  unknownName?: true;
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

/** Programs that change the directory later redirections resolve against. */
const DIRECTORY_CHANGERS = new Set(['cd', 'pushd']);

/**
 * Programs that write, replace, remove or re-mode the files named by their operands, as a
 * redirection does: every operand counts (a source of `mv` is removed, a source of `ln` gets a
 * hard link through which a later `>>` writes it unseen, a mode of `chmod` is not a file; a
 * false match only asks).
 */
const OPERAND_WRITERS = new Set(['tee', 'sponge', 'touch', 'truncate', 'rm', 'rmdir', 'unlink', 'shred', 'mkdir', 'chmod', 'chown', 'chgrp', 'mv', 'ln']);
/** Programs that write their last operand, or each source's name inside it when it is a folder (`-t DIR` likewise). */
const COPIERS = new Set(['cp', 'mv', 'install', 'ln', 'rsync']);
/** Programs that rewrite their file operands in place when given `-i` (`sed -i`, `perl -pi -e`). */
const IN_PLACE_EDITORS = new Set(['sed', 'perl', 'ruby']);

/**
 * The files one simple command writes by its arguments, as written (relative to where it
 * runs): the operands of the programs above, `dd of=F`, and `git config` setting a value
 * (`.git/config`, or the `--file` it names).
 */
function writtenByArguments(words: readonly string[]): string[] {
  const [program, ...args] = words;
  if (!program) return [];
  if (program === 'git') return writtenByGit(args);
  if (program === 'dd') return args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
  const operands = args.filter((a) => a !== '' && !a.startsWith('-'));
  const targets: string[] = [];
  if (OPERAND_WRITERS.has(program)) targets.push(...operands);
  // `cp -l` hard-links its sources, like `ln`.
  if (program === 'cp' && args.some((a) => a === '--link' || /^-[a-zA-Z]*l/.test(a))) targets.push(...operands);
  if (IN_PLACE_EDITORS.has(program) && args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) targets.push(...operands);
  if (COPIERS.has(program)) {
    const flagged = args.findIndex((a) => a === '-t' || a.startsWith('--target-directory'));
    const inline = flagged >= 0 ? args[flagged]!.split('=')[1] : undefined;
    const folder = flagged < 0 ? operands.at(-1) : (inline ?? args[flagged + 1]);
    if (folder !== undefined) {
      targets.push(folder);
      for (const source of operands) if (source !== folder) targets.push(`${folder}/${path.basename(source)}`);
    }
  }
  return targets;
}

/** `git config` options whose value follows as the next word. */
const GIT_CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '-t', '--type', '--default', '--comment', '--value']);
/** `git config` spellings that only read (`-z`, `--show-scope` still set a value when given one). */
const GIT_CONFIG_READS = /^(--get.*|-l|--list|get|list)$/;
/** `git config` spellings that write even with one operand. */
const GIT_CONFIG_WRITES = /^(--unset.*|--add|--replace-all|--rename-section|--remove-section|-e|--edit|set|unset|rename-section|remove-section|edit)$/;

/** The config file a `git …` line writes, when it is `git config` setting something; git's global options are followed. */
function writtenByGit(args: readonly string[]): string[] {
  let gitDir = '.git';
  let at = '';
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const option = args[i]!;
    if (option === '-C') at = `${args[++i] ?? ''}/`;
    else if (option === '-c') i++;
    else if (option === '--git-dir') gitDir = args[++i] ?? gitDir;
    else if (option.startsWith('--git-dir=')) gitDir = option.slice('--git-dir='.length);
  }
  if (args[i] !== 'config') return [];
  const rest = args.slice(i + 1);
  let file: string | undefined;
  const operands: string[] = [];
  let writes = false;
  for (let j = 0; j < rest.length; j++) {
    const word = rest[j]!;
    if (word === '--global' || word === '--system') return [];
    if (GIT_CONFIG_READS.test(word)) return [];
    if (GIT_CONFIG_WRITES.test(word)) writes = true;
    if (word === '-f' || word === '--file') file = rest[++j];
    else if (word.startsWith('--file=')) file = word.slice('--file='.length);
    else if (GIT_CONFIG_VALUE_OPTIONS.has(word)) j++;
    else if (!word.startsWith('-')) operands.push(word);
  }
  if (!writes && operands.length < 2) return [];
  if (file !== undefined) return [`${at}${file}`];
  return [`${at}${gitDir}/config`, `${at}${gitDir}/config.worktree`].slice(0, rest.includes('--worktree') ? 2 : 1);
}

/**
 * The control files a parsed bash line writes through redirections (`> f`, `>> f`, `&> f`),
 * `tee` and the other programs that write the files they name (above), resolved against the
 * working directory and against every folder the line `cd`s into (the order of a line is not
 * followed: a false match only asks). A name the line only knows when it runs is judged by
 * every name it could have: `~`, `$HOME` and `$PWD` are expanded (unless the line sets them),
 * a glob (`.gi?/config`) and any other variable or command substitution (`"$F"`, `$(cat f)`)
 * match any control file they could spell. Writes by programs not listed (`node -e`, a
 * script) are not seen; rules and the sandbox govern those. `line` is the command as written,
 * `shell` its analysis.
 */
export async function controlFilesOfShell(shell: ShellAnalysis, line: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<ControlFileWrite[]> {
  const targets = [...shell.redirectTargets];
  const bases = [cwd];
  for (const command of shell.commands) {
    const words = command.words ?? command.text.split(' ');
    targets.push(...writtenByArguments(words));
    const [program, ...args] = words;
    const operands = args.filter((a) => a !== '' && !a.startsWith('-'));
    if (program && DIRECTORY_CHANGERS.has(program) && operands[0]) bases.push(resolvePath(cwd, operands[0]));
  }
  const found = new Map<string, ControlFileWrite>();
  const dotglob = /\bdotglob\b/.test(line);
  for (const target of new Set(targets)) {
    for (const base of new Set(bases)) {
      const spelled = runTimeSpelling(target, { home: env.HOME, pwd: base, line });
      const control = spelled.pattern ? await controlFilePatternAt(spelled.path, target, cwd, base, dotglob) : await controlFileAt(resolvePath(base, spelled.path), cwd, env);
      if (control) found.set(control.path, control);
    }
  }
  return [...found.values()];
}

/** Stands for a run-time part of a name: unlike a glob's `*`, it may spell a leading dot. */
const ANYTHING = '\uE000';

/** A name as bash will spell it, or a glob of every name it may spell (`pattern`). */
interface Spelling {
  path: string;
  pattern: boolean;
}

/** `$X`, `${X…}`, `$(…)`, `` `…` ``, `$((…))`: replaced by ANYTHING, since only running the line tells what they are. */
const RUN_TIME_PARTS = /\$\(\([^]*?\)\)|\$\([^]*?(\)|$)|`[^`]*(`|$)|\$\{[^}]*(\}|$)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]/g;

function runTimeSpelling(word: string, known: { home: string | undefined; pwd: string; line: string }): Spelling {
  // Quotes only group; what they hold is spelled as is.
  let text = word.replace(/\\(.)/g, '$1').replace(/["']/g, '');
  const expand = (name: string, value: string | undefined) => {
    // A line that names the variable itself (`HOME=…`, `read HOME`, `for PWD in …`) may change it.
    const setsIt = new RegExp(`(^|[^$\\w{])${name}\\b`).test(known.line);
    if (value === undefined || setsIt) return;
    text = text.replace(new RegExp(`\\$(\\{${name}\\}|${name}\\b)`, 'g'), () => value);
  };
  if (text === '~' || text.startsWith('~/')) text = `$HOME${text.slice(1)}`;
  expand('HOME', known.home);
  expand('PWD', known.pwd);
  const unknown = text.replace(RUN_TIME_PARTS, ANYTHING);
  return { path: unknown, pattern: /[*?[]/.test(unknown) || unknown.includes(ANYTHING) };
}

/** A control name any segment of `pattern` (a path glob) can spell; shown as the command wrote it. */
async function controlFilePatternAt(pattern: string, written: string, cwd: string, base: string, dotglob: boolean): Promise<ControlFileWrite | undefined> {
  const realCwd = await realTarget(path.resolve(cwd));
  const absolute = path.resolve(base, pattern);
  const below = isInside(realCwd, absolute) ? path.relative(realCwd, absolute) : absolute;
  const segments = below.split(path.sep).filter((s) => s !== '');
  for (const segment of segments) {
    for (const [name, controls] of CONTROL_FOLDERS) if (globMatches(segment, name, dotglob)) return { path: written, controls, unknownName: true };
  }
  const last = segments.at(-1) ?? '';
  for (const [name, controls] of CONTROL_NAMES) if (globMatches(last, name, dotglob)) return { path: written, controls, unknownName: true };
  return undefined;
}

/**
 * Whether the glob `segment` (`*`, `?`, `[…]`, and run-time parts) can spell `name`, ignoring
 * case as the guard does. As in bash, a glob spells a leading dot only literally (every control
 * name starts with one), unless the line turns `dotglob` on.
 */
function globMatches(segment: string, name: string, dotglob: boolean): boolean {
  if (!/[*?[]/.test(segment) && !segment.includes(ANYTHING)) return segment.toLowerCase() === name;
  if (name.startsWith('.') && !dotglob && !segment.startsWith('.') && !segment.startsWith(ANYTHING)) return false;
  const source = segment.replace(/\[(!?)([^\]]*)\]|([*?\uE000])|([.+^${}()|\\\]])/g, (_m, negated: string, cls: string | undefined, wild: string | undefined, literal: string | undefined) => {
    if (cls !== undefined) return `[${negated ? '^' : ''}${cls.replace(/\\/g, '\\\\')}]`;
    if (wild !== undefined) return wild === '?' ? '.' : '.*';
    return `\\${literal}`;
  });
  try {
    return new RegExp(`^${source}$`, 'is').test(name);
  } catch {
    // A bracket bash would read literally: a false match only asks.
    return true;
  }
}

/** "writes .git/config, which controls git" (and more files joined with "and"). */
export function describeControlWrites(files: readonly ControlFileWrite[]): string {
  const one = (f: ControlFileWrite) =>
    f.unknownName ? `${f.path}, a name only known when it runs, which may be a file that controls ${f.controls}` : `${f.path}, which controls ${f.controls}`;
  return `writes ${files.map(one).join(', and ')}`;
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
  if (files.some((f) => f.unknownName)) return `${what}; --yes does not approve them. Spell the file's name literally, and a rule naming that exact file allows it.`;
  const rule = JSON.stringify({ permission: { edit: { [files[0]!.path]: 'allow' } } });
  return `${what}; --yes does not approve them. A rule naming the exact file allows it, e.g. ${rule}.`;
}
