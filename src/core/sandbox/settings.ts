// The sandbox settings (DESIGN §3, §19) and the one rule for combining them: a sandbox can
// only be tightened. The config, the command line's `--sandbox`, an agent's `sandbox:` and a
// parent session each give a value, and a later one may make commands see less, never more.
// This module holds no process or file system code, so loading the configuration stays cheap.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod';
import { once } from '../once.js';

// The schemas are built on first use (once.ts): a start whose files set no sandbox never builds them.
export const sandboxModeSchema = once(() => z.enum(['off', 'read-only', 'workspace-write']));
export type SandboxMode = z.infer<ReturnType<typeof sandboxModeSchema>>;

/** What a sandboxed command may read: everything but what is hidden, or only the project and system folders. */
export const sandboxReadSchema = once(() => z.enum(['all', 'project']));
export type SandboxRead = z.infer<ReturnType<typeof sandboxReadSchema>>;

/** The `sandbox` config key. */
export const sandboxConfigSchema = once(() =>
  z.strictObject({
    mode: sandboxModeSchema().default('off'),
    network: z.boolean().default(false),
    allow_write: z.array(z.string().min(1)).default([]),
    auto_allow: z.boolean().default(true),
    /** More paths hidden from sandboxed commands, besides the maintained credential list. */
    hide: z.array(z.string().min(1)).optional(),
    /** `all` when absent. */
    read: sandboxReadSchema().optional(),
    /** With `read: "project"`: more folders commands may read. */
    allow_read: z.array(z.string().min(1)).optional(),
  }),
);
export type SandboxConfig = z.output<ReturnType<typeof sandboxConfigSchema>>;

/** A session's sandbox, paths resolved. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** Commands reach the network. */
  network: boolean;
  /** Absolute paths writable besides the project (workspace-write only). */
  allowWrite: readonly string[];
  /** A bash command that would ask runs inside the sandbox without asking. */
  autoAllow: boolean;
  /** Absolute paths hidden besides the maintained credential list (`sandbox.hide`). */
  hide?: readonly string[];
  /** `project`: only the project, system folders and `allowRead` are visible; `all` when absent. */
  read?: SandboxRead;
  /** Absolute paths readable with `read: "project"`. */
  allowRead?: readonly string[];
}

export const SANDBOX_OFF: SandboxSettings = { mode: 'off', network: false, allowWrite: [], autoAllow: false };

/** How much a mode lets a command change: a higher rank is tighter. */
const TIGHTNESS: Record<SandboxMode, number> = { off: 0, 'workspace-write': 1, 'read-only': 2 };

/** The tighter of two modes. */
export function tighterMode(a: SandboxMode, b: SandboxMode): SandboxMode {
  return TIGHTNESS[a] >= TIGHTNESS[b] ? a : b;
}

/** True when `next` would let commands do more than `current`. */
export function loosensMode(current: SandboxMode, next: SandboxMode): boolean {
  return TIGHTNESS[next] < TIGHTNESS[current];
}

/** `~` and `~/x` expanded against `home`; relative paths resolved against `base`. */
export function expandPath(path: string, home: string, base: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(base, path);
}

/** The settings the configuration gives, `--sandbox` replacing the mode (the user's own choice may loosen). */
export function settingsFromConfig(
  config: SandboxConfig,
  options: { cliMode?: SandboxMode | undefined; env: NodeJS.ProcessEnv; cwd: string },
): SandboxSettings {
  const home = options.env.HOME || homedir();
  return {
    mode: options.cliMode ?? config.mode,
    network: config.network,
    allowWrite: config.allow_write.map((p) => expandPath(p, home, options.cwd)),
    autoAllow: config.auto_allow,
    hide: (config.hide ?? []).map((p) => expandPath(p, home, options.cwd)),
    read: config.read ?? 'all',
    allowRead: (config.allow_read ?? []).map((p) => expandPath(p, home, options.cwd)),
  };
}

/**
 * `base` made at most as permissive as `mode` asks. Turning the sandbox on where it was off
 * keeps `base.autoAllow` only when `trusted`: otherwise a file the user never approved (an
 * untrusted project's agent) could make commands run unasked that used to ask.
 */
export function tightenSandbox(base: SandboxSettings, mode: SandboxMode | undefined, trusted = true): SandboxSettings {
  if (mode === undefined) return base;
  const next = tighterMode(base.mode, mode);
  if (next === base.mode) return base;
  const autoAllow = base.mode === 'off' ? trusted && base.autoAllow : base.autoAllow;
  return { ...base, mode: next, autoAllow, allowWrite: next === 'read-only' ? [] : base.allowWrite };
}
