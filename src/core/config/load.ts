// Reads the configuration: defaults → `<config dir>/config.json` → `.opencoderc.json` files
// from the git root down to the working directory (nearer wins). Each file is parsed and
// validated on its own so that an error names the file the user has to fix; what only the
// files together can satisfy (a provider's `type`, given in one file, its `models` in
// another) is checked on the merged result, naming the files that set that entry.
import { join, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';
import { findProject } from '../project.js';
import { describeProblem, readSmallFileSync } from '../tools/regular-file.js';
import { describeIssue } from './issues.js';
import { JsoncSyntaxError, parseJsonc } from './jsonc.js';
import { deepMerge, isPlainObject, substituteEnv } from './merge.js';
import { configDir } from './paths.js';
import { parseConfigFile, parseMergedConfig, type Config } from './sections.js';
import type { ProjectNarrowing } from '../trust/narrow.js';

export const GLOBAL_CONFIG_FILE = 'config.json';
export const PROJECT_CONFIG_FILE = '.opencoderc.json';

export interface LoadConfigOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Given when the project is not trusted (DESIGN §15): the project's `.opencoderc.json`
   * files then go through it and can only narrow. The user's config file never does.
   */
  narrowing?: ProjectNarrowing | undefined;
}

export interface LoadedConfig {
  config: Config;
  /** The files that were read, lowest precedence first. */
  sources: string[];
}

/**
 * The directories whose `.opencoderc.json` apply, farthest first: from the git root down to
 * `cwd`. Outside a repository only `cwd` counts, so a stray file in a parent folder (or the
 * home folder) does not leak into unrelated projects.
 */
export function projectConfigDirs(cwd: string): string[] {
  const start = resolve(cwd);
  const project = findProject(start);
  if (!project.isGitRepo) return [start];
  const dirs = [project.root];
  const rel = relative(project.root, start);
  let current = project.root;
  for (const part of rel ? rel.split(sep) : []) {
    current = join(current, part);
    dirs.push(current);
  }
  return dirs;
}

export function loadConfig({ cwd, env, narrowing }: LoadConfigOptions): LoadedConfig {
  // Where a file was found decides whether it is the user's or the project's, not where a
  // symlink points: a project's `.opencoderc.json` linked to a trusted file is still the project's.
  const candidates = [
    { file: join(configDir(env), GLOBAL_CONFIG_FILE), narrowing: undefined },
    ...projectConfigDirs(cwd).map((dir) => ({ file: join(dir, PROJECT_CONFIG_FILE), narrowing })),
  ];
  const read: Array<{ file: string; data: Record<string, unknown> }> = [];
  let merged: Record<string, unknown> = {};
  // What the user's own file set: an untrusted project's limits are measured against it.
  let trusted: Record<string, unknown> = {};
  for (const { file, narrowing: cut } of candidates) {
    const data = readConfigFile(file, env, cut, trusted);
    if (data === undefined) continue;
    read.push({ file, data });
    merged = deepMerge(merged, data);
    if (!cut) trusted = merged;
  }
  const sources = read.map((r) => r.file);
  const result = parseMergedConfig(merged);
  if (!result.ok) {
    // Each file was valid on its own, so only a combination can fail here: name the files
    // that set the entry at fault (`provider.<name>`), else all of them.
    const { issue } = result;
    const what = issue ? describeIssue(result.schema, merged, issue) : 'is invalid.';
    const entry = issue?.path.slice(0, 2).map(String) ?? [];
    const setting = read.filter((r) => entry.length > 0 && hasPath(r.data, entry)).map((r) => r.file);
    throw new ConfigError(`${(setting.length ? setting : sources).join(' + ') || 'default configuration'}: ${what}`);
  }
  narrowing?.limitAgentTurns(result.value.subagents.max_turns);
  return { config: result.value, sources };
}

function hasPath(data: Record<string, unknown>, path: readonly string[]): boolean {
  let current: unknown = data;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return false;
    current = current[key];
  }
  return true;
}

/**
 * One file's settings, `{env:VAR}` resolved and validated, but without defaults applied
 * (defaults are applied once, after merging, so a later file never resets an earlier one).
 * Returns undefined when the file does not exist.
 */
export function readConfigFile(
  file: string,
  env: NodeJS.ProcessEnv,
  narrowing?: ProjectNarrowing,
  trusted: Record<string, unknown> = {},
): Record<string, unknown> | undefined {
  // A repository can ship `.opencoderc.json` as a symlink to /dev/zero or /dev/stdin
  // (reading it would never end), or as a 1 GB file: only a small regular file is read.
  const read = readSmallFileSync(file);
  if (!('text' in read)) {
    if (read.problem === 'missing') return undefined;
    if (read.problem === 'not-regular') throw new ConfigError(`${file}: is not a regular file.`);
    throw new ConfigError(`${file}: ${describeProblem(read)}.`);
  }
  const text = read.text;
  let parsed: unknown;
  try {
    parsed = parseJsonc(text);
  } catch (err) {
    if (err instanceof JsoncSyntaxError) throw new ConfigError(`${file}: ${err.message}.`);
    throw err;
  }
  // An empty (or comments-only) file is a file with nothing set yet, not an error.
  let data: unknown = parsed ?? {};
  if (narrowing && isPlainObject(data)) {
    data = narrowing.dropWideningKeys(file, data, trusted);
    narrowing.noteEnvReferences(file, JSON.stringify(data));
  }
  data = substituteEnv(data, narrowing ? {} : env);
  const result = parseConfigFile(data);
  if (!result.ok) throw new ConfigError(`${file}: ${result.issue ? describeIssue(result.schema, data, result.issue) : 'is invalid.'}`);
  if (!isPlainObject(data)) throw new ConfigError(`${file}: the top level must be an object.`);
  return narrowing ? narrowing.takeProjectParts(file, data, isPlainObject(data.permission) ? result.value.permission : undefined) : data;
}
