// The sandbox as the rest of the core uses it (DESIGN §19). Contract:
// - `prepareSandbox` runs once per start: the settings (config, `--sandbox`, an untrusted
//   project's tightening), whether the machine can sandbox (checked once), the paths every
//   sandboxed command is kept away from, and the one line to show when a sandbox was asked for
//   but cannot be had;
// - `commandSandbox` gives one session what its commands run in: undefined when the sandbox is
//   off, `unavailable` (commands run on the host and ask as without a sandbox) or `on` with a
//   runner bound to the session's policy;
// - sessions inherit their parent's settings and may only tighten them (settings.ts).
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { configDir, dataDir } from '../config/paths.js';
import { detectSandbox, type SandboxAvailability, type SandboxBackend } from './availability.js';
import { sandboxBlockNote } from './blocked.js';
import { bwrapArgs } from './bwrap.js';
import { findWorkTree } from './git-surface.js';
import { GuardWatch, type GuardFinding } from './guard-watch.js';
import { takeOutPlantedRepos, type PlantedRepos } from './planted-repos.js';
import { refreshControlSurface, sandboxPolicy, type SandboxPolicy } from './policy.js';
import { hostRunner, type CommandRunner, type ProgramWrapper } from './runner.js';
import { seatbeltProfile } from './seatbelt.js';
import { settingsFromConfig, type SandboxConfig, type SandboxMode, type SandboxSettings } from './settings.js';

export type { CommandRunner, RemoteCommandRunner, RunningCommand, RunOptions, CommandExit } from './runner.js';
export { hostRunner } from './runner.js';
export type { SandboxMode, SandboxSettings, SandboxConfig } from './settings.js';
export { sandboxModeSchema, sandboxConfigSchema, tightenSandbox, SANDBOX_OFF } from './settings.js';
export type { SandboxPolicy } from './policy.js';
export { BWRAP_ENV, detectSandbox } from './availability.js';

/** What one start knows about sandboxing. */
export interface SandboxHost {
  /** The root sessions' settings. */
  settings: SandboxSettings;
  availability: SandboxAvailability;
  home: string;
  /** This program's config and data dirs, hidden from every sandboxed command. */
  programDirs: string[];
  runtimeDir?: string | undefined;
  /** The line to show at start when a sandbox was asked for but is unavailable. */
  notice?: string;
}

export interface PrepareSandboxOptions {
  config: SandboxConfig;
  /** `--sandbox <mode>`: replaces `sandbox.mode`. */
  cliMode?: SandboxMode | undefined;
  /** Applied last: an untrusted project's tightening (trust/narrow.ts). */
  tighten?: ((settings: SandboxSettings) => SandboxSettings) | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  platform?: NodeJS.Platform;
}

export function prepareSandbox(options: PrepareSandboxOptions): SandboxHost {
  const { env } = options;
  let settings = settingsFromConfig(options.config, { cliMode: options.cliMode, env, cwd: options.cwd });
  if (options.tighten) settings = options.tighten(settings);
  const base = {
    settings,
    home: env.HOME || homedir(),
    programDirs: [configDir(env), dataDir(env)],
    runtimeDir: env.XDG_RUNTIME_DIR || undefined,
  };
  // Agents may turn the sandbox on later (`sandbox:`), so the check runs whenever the mode is on, lazily otherwise.
  if (settings.mode === 'off') return { ...base, get availability() { return detectSandbox(env, options.platform); } };
  const availability = detectSandbox(env, options.platform);
  if (availability.available) return { ...base, availability };
  return {
    ...base,
    availability,
    notice: `Sandbox unavailable: ${availability.reason}; commands run unsandboxed and ask for approval as with sandbox.mode "off".`,
  };
}

/** What a session's commands run in, for the tools. */
export type CommandSandbox =
  | {
      state: 'on';
      mode: Exclude<SandboxMode, 'off'>;
      /** Commands that would ask only because of the built-in default run unasked. */
      autoAllow: boolean;
      runner: CommandRunner;
      policy: SandboxPolicy;
      /** "blocked by the sandbox: …" for a failed command's output, when the sandbox caused it. */
      blockNote(output: string): string | undefined;
      /** Control paths commands created since the last call (removed, or named): one sentence, or undefined. */
      guardNote(): string | undefined;
    }
  | { state: 'unavailable'; mode: Exclude<SandboxMode, 'off'>; reason: string };

/** The sandbox of a session working in `cwd` with `settings`; undefined when it is off. */
export function commandSandbox(host: SandboxHost, settings: SandboxSettings, cwd: string): CommandSandbox | undefined {
  const mode = settings.mode;
  if (mode === 'off') return undefined;
  const availability = host.availability;
  if (!availability.available) return { state: 'unavailable', mode, reason: availability.reason };
  // The policy is built on first use (paths are looked up, allow_write folders created, only
  // if a command runs); its control surface is looked up again before each command.
  let policy: SandboxPolicy | undefined;
  const build = (): SandboxPolicy =>
    sandboxPolicy({
      mode,
      network: settings.network,
      cwd,
      allowWrite: settings.allowWrite,
      home: host.home,
      programDirs: host.programDirs,
      runtimeDir: host.runtimeDir,
      hide: settings.hide,
      read: settings.read,
      allowRead: settings.allowRead,
    });
  const current = (): SandboxPolicy => (policy ??= build());
  const watch = new GuardWatch();
  let planted: PlantedRepos[] = [];
  const inner = hostRunner(`a ${mode} sandbox (${availability.backend.kind === 'bwrap' ? 'bubblewrap' : 'sandbox-exec'})`, wrapperFor(availability.backend, current));
  const runner: CommandRunner = {
    description: inner.description,
    run: async (command, options) => {
      policy = policy ? refreshControlSurface(policy) : build();
      // Seatbelt refuses the guarded paths itself; bwrap needs the watch (guard-watch.ts).
      const release = availability.backend.kind === 'bwrap' ? watch.hold(policy.guarded) : () => {};
      const index = policy.index;
      try {
        const running = await inner.run(command, options);
        // The command has ended (and everything it started) before anything is looked at again.
        const exited = running.exited.then(async (exit) => {
          release();
          if (index) {
            const found = await takeOutPlantedRepos(index, findWorkTree(cwd).root);
            if (found.paths.length) planted.push(found);
          }
          return exit;
        });
        return { ...running, exited, alive: running.alive, stop: running.stop, release: running.release };
      } catch (err) {
        release();
        throw err;
      }
    },
  };
  return {
    state: 'on',
    mode,
    autoAllow: settings.autoAllow,
    runner,
    get policy() {
      return current();
    },
    blockNote: (output) => sandboxBlockNote(output, current()),
    guardNote: () => {
      const repos = planted;
      planted = [];
      return guardNote(watch.takeFindings(), repos, cwd);
    },
  };
}

/** What the watch found, for the tool result: the model learns why its file is gone or inert. */
function guardNote(findings: readonly GuardFinding[], repos: readonly PlantedRepos[], cwd: string): string | undefined {
  if (findings.length === 0 && repos.length === 0) return undefined;
  const name = (path: string) => (path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path);
  const sentences: string[] = [];
  const removed = findings.filter((f) => f.action === 'remove');
  if (removed.length) {
    sentences.push(
      `the sandbox removed ${removed.map((f) => name(f.path)).join(', ')}: control files (git's config, hooks, commondir, gitdir…; this program's and Claude Code's settings, agents, MCP servers) cannot be created from inside it, since what they say would later run outside it; write this program's with the write or edit tool, which asks`,
    );
  }
  const repository = findings.find((f) => f.action === 'report' && basename(f.path) === '.git');
  if (repository) {
    sentences.push(
      `${name(repository.path)} was created from inside the sandbox: git obeys that repository's config and hooks wherever it later runs there, outside the sandbox too, so the user should look at ${name(join(repository.path, 'config'))} before running git in it`,
    );
  }
  const reported = findings.filter((f) => f.action === 'report' && f !== repository);
  if (reported.length) {
    sentences.push(
      `${reported.map((f) => name(f.path)).join(', ')} ${reported.length === 1 ? 'was' : 'were'} created from inside the sandbox: control files written there are not applied until the user trusts the project again (opencode-ink trust); write them with the write or edit tool, which asks`,
    );
  }
  for (const { paths, failed } of repos) {
    const list = paths.map(name).join(', ');
    sentences.push(
      failed
        ? `${list} ${paths.length === 1 ? 'holds a git repository of its own and was' : 'hold git repositories of their own and were'} added to git's index as a submodule, and could not be taken out again (${failed}): git status would run ${paths.length === 1 ? 'its' : 'their'} config outside the sandbox; the user must run git rm --cached on ${paths.length === 1 ? 'it' : 'them'} first`
        : `the sandbox took ${list} out of git's index: ${paths.length === 1 ? 'it holds a git repository' : 'they hold git repositories'} of ${paths.length === 1 ? 'its' : 'their'} own, and git status would run ${paths.length === 1 ? 'its' : 'their'} config (core.fsmonitor…) outside the sandbox; the files are untouched`,
    );
  }
  return sentences.join('; ');
}

/**
 * How an MCP stdio server with `sandbox: true` starts: behind the sandbox program, with the
 * start's mode (workspace-write when the sandbox is off) in the engine's folder; or why it
 * cannot (such a server is then not started at all, never started unsandboxed).
 */
export function serverSandbox(host: SandboxHost, cwd: string): { wrap: ProgramWrapper } | { unavailable: string } {
  const availability = host.availability;
  if (!availability.available) return { unavailable: `it asks for the sandbox, which is unavailable: ${availability.reason}` };
  const mode = host.settings.mode === 'off' ? 'workspace-write' : host.settings.mode;
  let policy: SandboxPolicy | undefined;
  const current = () =>
    (policy ??= sandboxPolicy({
      mode,
      network: host.settings.network,
      cwd,
      allowWrite: mode === 'workspace-write' ? host.settings.allowWrite : [],
      home: host.home,
      programDirs: host.programDirs,
      runtimeDir: host.runtimeDir,
      hide: host.settings.hide,
      read: host.settings.read,
      allowRead: host.settings.allowRead,
    }));
  const wrap = wrapperFor(availability.backend, () => policy ?? current());
  // A server lives as long as the engine: git's control names it creates are removed the
  // moment they appear, for as long as this process runs (the watch never keeps it alive).
  const watch = new GuardWatch();
  return {
    wrap: (program, args) => {
      policy = refreshControlSurface(current());
      if (availability.backend.kind === 'bwrap') watch.hold(policy.guarded.filter((g) => g.action === 'remove'));
      return wrap(program, args);
    },
  };
}

/** The program line of a sandboxed command: the backend's program in front of the shell. */
export function wrapperFor(backend: SandboxBackend, policy: () => SandboxPolicy): ProgramWrapper {
  if (backend.kind === 'bwrap') return (program, args) => ({ program: backend.binary, args: [...bwrapArgs(policy()), '--', program, ...args] });
  return (program, args) => ({ program: backend.binary, args: ['-p', seatbeltProfile(policy(), { tmpDir: process.env.TMPDIR }), program, ...args] });
}
