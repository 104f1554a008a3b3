// Where hooks come from (DESIGN §3, §15, §20). Contract: `loadHookSources` gathers the `hooks`
// of our configuration (already cut from an untrusted project's `.opencoderc.json` by the
// config loader), of the user's `~/.claude/settings.json`, and — only for a trusted project —
// of the project's `.claude/settings.json` and `.claude/settings.local.json`. All of them run
// (Claude Code merges its settings files' hooks the same way). An untrusted project's settings
// hooks are named in the trust notice through the narrowing instead. `disableAllHooks: true`
// in any settings file read turns every hook off, as in Claude Code. Only `hooks` and
// `disableAllHooks` are read here: the files' permissions and env belong to other modules.
// Nothing throws: an unreadable or malformed file is one warning naming it.
import { join } from 'node:path';
import { isPlainObject } from '../config/merge.js';
import { JsoncSyntaxError, parseJsonc } from '../config/jsonc.js';
import { describeProblem, readSmallFileSync } from '../tools/regular-file.js';
import type { ProjectNarrowing } from '../trust/narrow.js';
import { mergeHooks, parseHooks, type HookSet } from './config.js';

export const CLAUDE_SETTINGS_FILES = ['settings.json', 'settings.local.json'] as const;

export interface HookSourcesOptions {
  /** The `hooks` value of our merged configuration. */
  configHooks: unknown;
  /** The configuration files read, named in warnings about `configHooks`. */
  configSources: readonly string[];
  /** The project root, whose `.claude/` folder holds the project's settings. */
  projectRoot: string;
  /** The user's Claude Code folder (`~/.claude`). */
  claudeUserDir: string;
  /** Given when the project is not trusted: its settings hooks are noted there, not loaded. */
  narrowing: ProjectNarrowing | undefined;
}

export interface HookSources {
  hooks: HookSet;
  /** A settings file says `disableAllHooks: true`: agent files' own hooks do not run either. */
  disabled: boolean;
  /** One line each, for stderr or the UI. */
  warnings: string[];
}

export function loadHookSources(options: HookSourcesOptions): HookSources {
  const warnings: string[] = [];
  const sets: HookSet[] = [];
  let disabled = false;
  const configLabel = options.configSources.length ? options.configSources.join(' + ') : 'config';
  const fromConfig = parseHooks(options.configHooks, configLabel);
  sets.push(fromConfig.hooks);
  warnings.push(...fromConfig.warnings);

  const take = (file: string) => {
    const settings = readSettings(file, warnings);
    if (!settings) return;
    if (settings.disableAllHooks === true) disabled = true;
    const parsed = parseHooks(settings.hooks, file);
    sets.push(parsed.hooks);
    warnings.push(...parsed.warnings);
  };
  take(join(options.claudeUserDir, 'settings.json'));
  for (const name of CLAUDE_SETTINGS_FILES) {
    const file = join(options.projectRoot, '.claude', name);
    if (!options.narrowing) {
      take(file);
      continue;
    }
    // Untrusted: not even parsed for hooks beyond naming the events it would have run.
    const settings = readSettings(file, []);
    if (settings && isPlainObject(settings.hooks)) options.narrowing.noteSettingsHooks(file, Object.keys(settings.hooks));
  }
  return { hooks: disabled ? {} : mergeHooks(sets), disabled, warnings: warnings.map((w) => `Warning: ${w}`) };
}

/** A settings file's top-level object; undefined (with a warning) when it cannot be used, or silently when it is absent. */
function readSettings(file: string, warnings: string[]): Record<string, unknown> | undefined {
  const read = readSmallFileSync(file);
  if (!('text' in read)) {
    if (read.problem === 'missing') return undefined;
    warnings.push(`${file}: ${read.problem === 'not-regular' ? 'is not a regular file' : describeProblem(read)}; its hooks are ignored.`);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = parseJsonc(read.text);
  } catch (err) {
    const why = err instanceof JsoncSyntaxError ? err.message : String(err);
    warnings.push(`${file}: ${why}; its hooks are ignored.`);
    return undefined;
  }
  if (parsed === undefined || parsed === null) return undefined;
  if (!isPlainObject(parsed)) {
    warnings.push(`${file}: the top level must be an object; its hooks are ignored.`);
    return undefined;
  }
  return parsed;
}
