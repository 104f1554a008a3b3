// Custom commands from every place DESIGN §10 names, later overriding earlier by name:
// `.opencode/commands/` → `.opencode/command/` → `.claude/commands/` → `<config dir>/commands/`
// → the config's `command` key. Project folders are read from the git root down to the
// working directory, nearer ones winning. A broken file is skipped with a warning.
// The user's Claude Code and OpenCode folders (`~/.claude/commands`, `~/.config/opencode/
// command(s)`) come just before `<config dir>/commands/`. Files in subfolders are namespaced
// as Claude Code does: `frontend/comp.md` is `/frontend:comp`.
import { readdirSync, type Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import type { PeerUserDirs } from '../config/paths.js';
import type { CommandConfig } from '../config/schema.js';
import { describeIssue } from '../config/issues.js';
import { projectConfigDirs } from '../config/load.js';
import { readFrontMatter } from '../frontmatter.js';
import { readMarkdownFolders, type SourceWarning } from '../markdown-folder.js';
import type { ProjectNarrowing } from '../trust/narrow.js';
import { allowedToolGrants } from '../skills/allowed-tools.js';
import { BUILTIN_COMMANDS, commandFields, CommandFrontMatterSchema, type CommandDefinition } from './definition.js';
import { INIT_COMMAND } from './init.js';

export interface LoadCommandsOptions {
  /** The user's config dir; its `commands/` subfolder is read. */
  configDir: string;
  /** The user's Claude Code and OpenCode folders. */
  peerDirs?: PeerUserDirs | undefined;
  cwd: string;
  /** The config's `command` key. */
  configCommands?: Record<string, CommandConfig> | undefined;
  /** Given when the project is not trusted (DESIGN §15): project commands then refuse `` !`cmd` ``. */
  narrowing?: ProjectNarrowing | undefined;
}

export type CommandWarning = SourceWarning;

export interface LoadedCommands {
  commands: Map<string, CommandDefinition>;
  warnings: CommandWarning[];
}

/** Subfolders deep enough for any real namespace; also a bound on what a folder loop could cost. */
const MAX_NAMESPACE_DEPTH = 3;

interface CommandFolder {
  dir: string;
  project: boolean;
  /** `frontend` for `commands/frontend/`, `a:b` for `commands/a/b/`; absent at the top. */
  namespace?: string;
}

/** A folder and its subfolders (real directories only, so a symlink loop cannot recurse). */
function withSubfolders(folder: CommandFolder, depth = 0): CommandFolder[] {
  if (depth >= MAX_NAMESPACE_DEPTH) return [folder];
  let entries: Dirent[];
  try {
    entries = readdirSync(folder.dir, { withFileTypes: true });
  } catch {
    return [folder];
  }
  const subs = entries
    .filter((e) => e.isDirectory() && /^[\w.-]+$/.test(e.name) && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
    .flatMap((name) =>
      withSubfolders({ dir: join(folder.dir, name), project: folder.project, namespace: folder.namespace ? `${folder.namespace}:${name}` : name }, depth + 1),
    );
  return [folder, ...subs];
}

/** The folders to read, lowest precedence first, each marked with who wrote it. */
export function commandFolders(opts: Pick<LoadCommandsOptions, 'configDir' | 'cwd' | 'peerDirs'>): CommandFolder[] {
  const projectDirs = projectConfigDirs(opts.cwd);
  const inProjects = (...parts: string[]) => projectDirs.map((d) => ({ dir: join(d, ...parts), project: true }));
  const peers = opts.peerDirs;
  return [
    ...inProjects('.opencode', 'commands'),
    ...inProjects('.opencode', 'command'),
    ...inProjects('.claude', 'commands'),
    ...(peers
      ? [
          { dir: join(peers.opencode, 'command'), project: false },
          { dir: join(peers.opencode, 'commands'), project: false },
          { dir: join(peers.claude, 'commands'), project: false },
        ]
      : []),
    { dir: join(opts.configDir, 'commands'), project: false },
  ].flatMap((folder) => withSubfolders(folder));
}

export type ParsedCommandFile = { ok: true; command: CommandDefinition; warnings: string[] } | { ok: false; reason: string };

export function parseCommandMarkdown(text: string, file: string): ParsedCommandFile {
  const read = readFrontMatter(text);
  if (!read.ok) return read;
  const result = CommandFrontMatterSchema.safeParse(read.data);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: issue ? describeIssue(CommandFrontMatterSchema, read.data, issue) : 'invalid front-matter' };
  }
  const template = read.body.trim();
  if (!template) return { ok: false, reason: 'the file has no template (the text after the front-matter is empty)' };
  const fields = result.data;
  const hint = fields['argument-hint'];
  const allowed = allowedToolGrants(fields['allowed-tools']);
  const warnings = [...allowed.warnings];
  // Here the model never starts a slash command, so `true` is what happens anyway.
  if (fields['disable-model-invocation'] === false) warnings.push('"disable-model-invocation: false" is not applied: the model cannot start slash commands here; only you can.');
  const unknown = Object.keys(read.data).filter((key) => !commandFields().has(key));
  if (unknown.length > 0) {
    const known = [...commandFields()].join(', ');
    warnings.push(`ignoring unknown field${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).map((key) => JSON.stringify(key.slice(0, 60))).join(', ')} (a command file may set ${known}).`);
  }
  return {
    ok: true,
    warnings,
    command: {
      name: basename(file).replace(/\.md$/i, ''),
      template,
      source: file,
      ...(fields.description ? { description: fields.description } : {}),
      ...(fields.agent ? { agent: fields.agent } : {}),
      ...(fields.model ? { model: fields.model } : {}),
      ...(fields.subtask !== undefined ? { subtask: fields.subtask } : {}),
      ...(hint ? { argumentHint: Array.isArray(hint) ? hint.join(' ') : hint } : {}),
      ...(allowed.entries.length > 0 ? { allowedTools: allowed.entries } : {}),
      ...(allowed.grants.length > 0 ? { grants: allowed.grants } : {}),
    },
  };
}

export function loadCommands(opts: LoadCommandsOptions): LoadedCommands {
  // The product's own prompt commands come first, so a user's file of the same name replaces them.
  const commands = new Map<string, CommandDefinition>([[INIT_COMMAND.name, INIT_COMMAND]]);
  const warnings: CommandWarning[] = [];
  const narrowing = opts.narrowing;
  readMarkdownFolders(
    commandFolders(opts),
    (folder) => folder.dir,
    'command',
    (text, file, folder) => {
      const parsed = parseCommandMarkdown(text, file);
      if (!parsed.ok) return parsed;
      const named = folder.namespace ? { ...parsed.command, name: `${folder.namespace}:${parsed.command.name}` } : parsed.command;
      return { ok: true, value: folder.project && narrowing ? narrowing.command(named) : named, warnings: parsed.warnings };
    },
    (command) => commands.set(command.name, command),
    warnings,
  );
  for (const [name, entry] of Object.entries(opts.configCommands ?? {})) {
    const command: CommandDefinition = {
      name,
      template: entry.template,
      source: 'config',
      ...(entry.description ? { description: entry.description } : {}),
      ...(entry.agent ? { agent: entry.agent } : {}),
      ...(entry.model ? { model: entry.model } : {}),
      ...(entry.subtask !== undefined ? { subtask: entry.subtask } : {}),
    };
    commands.set(name, narrowing?.commandNames.has(name) ? narrowing.command(command) : command);
  }
  // The UI acts on its own commands before looking for custom ones: a namesake would never run.
  for (const { name } of BUILTIN_COMMANDS) {
    const shadowed = commands.get(name);
    if (!shadowed) continue;
    commands.delete(name);
    warnings.push({ source: shadowed.source, message: `skipped: /${name} is a built-in command; rename the custom one.` });
  }
  for (const command of commands.values()) narrowing?.noteCommand(command);
  return { commands, warnings };
}
