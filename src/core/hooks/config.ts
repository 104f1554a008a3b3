// Claude Code's hook configuration (DESIGN §20), read leniently: one settings object's
// `hooks` value becomes the hook groups this program can run, and everything it cannot use
// (an unknown event, a `prompt` or `http` hook, a matcher that is not a regex, a missing
// command) is skipped with one warning naming the file and the key. A bad entry never stops
// the others, nor the program: Claude Code's settings files are written for another program.
//
// Shape: `{ "<Event>": [ { "matcher": "Bash|Edit", "hooks": [ { "type": "command",
// "command": "…", "timeout": 60 } ] } ] }`. The matcher follows Claude Code: empty, missing
// or `*` matches everything; a plain name or `A|B` list matches those names exactly; anything
// else is a regular expression searched in the name (`mcp__github__.*`, `Notebook.*`).
import { isPlainObject } from '../config/merge.js';

/** The events this program fires, in Claude Code's spelling. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'PreCompact',
  'Notification',
  'TaskCreated',
  'TaskCompleted',
  'TeammateIdle',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run before it is stopped, unless its `timeout` says otherwise (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** One command to run. */
export interface HookCommand {
  command: string;
  timeoutSeconds: number;
  /** `async: true`: started and not waited for; what it prints or exits with decides nothing. */
  background?: boolean;
  /** `once: true`: runs at most once while the program runs. */
  once?: boolean;
  /** The file that configured it (or `config`), named in warnings. */
  source: string;
}

/** Commands that run when the event's subject matches. */
export interface HookGroup {
  /** As written; undefined when it matches everything. */
  matcher: string | undefined;
  matches(names: readonly string[]): boolean;
  hooks: HookCommand[];
}

/** Every configured hook, by event. */
export type HookSet = { readonly [E in HookEventName]?: readonly HookGroup[] };

export interface ParsedHooks {
  hooks: HookSet;
  warnings: string[];
}

const SIMPLE_MATCHER = /^[A-Za-z0-9_|]+$/;

/** A matcher as Claude Code reads it; undefined with a reason when it is not a valid regex. */
export function compileMatcher(matcher: string | undefined): ((names: readonly string[]) => boolean) | { invalid: string } {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  if (SIMPLE_MATCHER.test(matcher)) {
    const wanted = new Set(matcher.split('|').filter(Boolean));
    return (names) => names.some((name) => wanted.has(name));
  }
  let regex: RegExp;
  try {
    regex = new RegExp(matcher);
  } catch (err) {
    return { invalid: err instanceof Error ? err.message : String(err) };
  }
  return (names) => names.some((name) => regex.test(name));
}

function isHookEvent(name: string): name is HookEventName {
  return (HOOK_EVENTS as readonly string[]).includes(name);
}

/**
 * The hooks of one settings object's `hooks` value. `source` names the file in warnings and
 * is kept on each command.
 */
export function parseHooks(value: unknown, source: string): ParsedHooks {
  const warnings: string[] = [];
  const warn = (key: string, what: string) => warnings.push(`${source}: ${key} ${what}; it is ignored.`);
  const hooks: { [E in HookEventName]?: HookGroup[] } = {};
  if (value === undefined) return { hooks, warnings };
  if (!isPlainObject(value)) {
    warn('hooks', 'must be an object of events (e.g. {"PreToolUse": [...]})');
    return { hooks, warnings };
  }
  for (const [event, groups] of Object.entries(value)) {
    const key = `hooks.${event}`;
    if (!isHookEvent(event)) {
      warn(key, `is not an event this program fires (it fires ${HOOK_EVENTS.join(', ')})`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warn(key, 'must be a list of {"matcher", "hooks"} entries');
      continue;
    }
    const parsed: HookGroup[] = [];
    groups.forEach((group: unknown, i) => {
      const at = `${key}[${i}]`;
      if (!isPlainObject(group)) return warn(at, 'must be an object with "hooks"');
      const { matcher } = group;
      if (matcher !== undefined && typeof matcher !== 'string') return warn(`${at}.matcher`, 'must be a string');
      const matches = compileMatcher(matcher);
      if (typeof matches !== 'function') return warn(`${at}.matcher`, `is not a valid regular expression (${matches.invalid})`);
      if (!Array.isArray(group.hooks)) return warn(`${at}.hooks`, 'must be a list of {"type": "command", "command"} entries');
      const commands: HookCommand[] = [];
      group.hooks.forEach((hook: unknown, j) => {
        const command = parseCommand(hook, `${at}.hooks[${j}]`, source, warn);
        if (command) commands.push(command);
      });
      if (commands.length) parsed.push({ matcher: matcher || undefined, matches, hooks: commands });
    });
    if (parsed.length) hooks[event] = parsed;
  }
  return { hooks, warnings };
}

function parseCommand(hook: unknown, at: string, source: string, warn: (key: string, what: string) => void): HookCommand | undefined {
  if (!isPlainObject(hook)) return void warn(at, 'must be an object like {"type": "command", "command": "…"}');
  if (hook.type !== 'command') {
    const type = typeof hook.type === 'string' ? `"${hook.type}"` : 'missing';
    return void warn(`${at}.type`, `is ${type}; only "command" hooks run here`);
  }
  if (typeof hook.command !== 'string' || hook.command.trim() === '') return void warn(`${at}.command`, 'must be a non-empty string');
  for (const key of Object.keys(hook)) {
    if (key === 'statusMessage') warn(`${at}.statusMessage`, 'is not shown here (the hook runs without a spinner message)');
    else if (!KNOWN_COMMAND_KEYS.has(key)) warn(`${at}.${key}`, 'is not a field of a command hook (it takes type, command, timeout, async, once and statusMessage)');
  }
  for (const key of ['async', 'once'] as const) {
    if (hook[key] !== undefined && typeof hook[key] !== 'boolean') return void warn(`${at}.${key}`, 'must be true or false');
  }
  let timeoutSeconds = DEFAULT_HOOK_TIMEOUT_SECONDS;
  if (hook.timeout !== undefined) {
    if (typeof hook.timeout !== 'number' || !Number.isFinite(hook.timeout) || hook.timeout <= 0) {
      return void warn(`${at}.timeout`, 'must be a positive number of seconds');
    }
    timeoutSeconds = hook.timeout;
  }
  return { command: hook.command, timeoutSeconds, source, ...(hook.async === true ? { background: true } : {}), ...(hook.once === true ? { once: true } : {}) };
}

/** The fields of a command hook in Claude Code's settings. */
const KNOWN_COMMAND_KEYS: ReadonlySet<string> = new Set(['type', 'command', 'timeout', 'async', 'once', 'statusMessage']);

/** Several sources' hooks together, in order: every source's groups run (Claude Code merges its settings files' hooks). */
export function mergeHooks(sets: readonly HookSet[]): HookSet {
  const out: { [E in HookEventName]?: HookGroup[] } = {};
  for (const set of sets) {
    for (const event of HOOK_EVENTS) {
      const groups = set[event];
      if (groups?.length) out[event] = [...(out[event] ?? []), ...groups];
    }
  }
  return out;
}

/** True when no hook is configured at all (the engine then skips every hook step). */
export function isEmptyHookSet(set: HookSet): boolean {
  return HOOK_EVENTS.every((event) => !set[event]?.length);
}
