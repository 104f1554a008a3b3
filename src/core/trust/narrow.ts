// The one place where files of an untrusted project are cut down to what can only narrow
// (DESIGN §15). Loaders mark where each setting came from and hand project ones here:
// - config keys that could send the user's key or code elsewhere, or start programs, are
//   dropped whole (WIDENING_CONFIG_KEYS); `{env:VAR}` is not expanded;
// - permission rules lose their `allow` rules, and the `ask`/`deny` rules left become a
//   *restriction*: a ruleset of its own, evaluated together with the trusted rules with the
//   strictest answer winning, so it can turn allow into ask or deny but never deny into ask;
// - an agent that replaces a trusted one (built-in or the user's) keeps the trusted one's
//   permission, mode and tools; the project's file may only remove tools and add restrictions;
// - the `sandbox` key may only tighten (DESIGN §19): a stricter `mode`, `network: false`,
//   `auto_allow: false`; a sandbox it turns on does not auto-allow, since commands that asked
//   would then run unasked; `allow_write` and anything looser are ignored, and named;
// - commands load, but their `` !`cmd` `` lines are refused when the command is used;
// - skills load, but their `allowed-tools` let nothing run unasked.
// Everything cut is named once, so the user sees what trusting the project would change. A
// trusted project whose control files changed since they were pinned is narrowed the same
// way, and its notice names the changed files first.
import { homedir } from 'node:os';
import { isAbsolute, relative } from 'node:path';
import type { AgentDefinition } from '../agents/definition.js';
import type { CommandDefinition } from '../commands/definition.js';
import type { SkillDefinition } from '../skills/definition.js';
import { deepMerge, isPlainObject } from '../config/merge.js';
import { defaultSetting, type Config } from '../config/sections.js';
import { isPermissionMode, loosensPermissions } from '../permission/modes.js';
import { rulesFromConfig, type Ruleset } from '../permission/rules.js';
import type { PermissionConfig } from '../permission/schema.js';
import { expandPath, loosensMode, tightenSandbox, type SandboxMode, type SandboxSettings } from '../sandbox/settings.js';

interface WideningKey {
  /** Where the key sits in a config file. */
  path: readonly string[];
  /** True when the value would widen what is allowed (and so is dropped); `trusted` is the value the trusted config gives. */
  widens(value: unknown, trusted: unknown): boolean;
  /** How many levels below `path` the notice names (`provider.anthropic.baseURL`: 2). */
  detail: number;
}

/** Config keys an untrusted project file may not set. Add future keys (e.g. `.mcp.json` servers) here. */
export const WIDENING_CONFIG_KEYS: readonly WideningKey[] = [
  // baseURL / apiKey / headers decide where requests, and the user's key with them, are sent.
  { path: ['provider'], widens: () => true, detail: 2 },
  // MCP servers are programs to start and hosts to connect to.
  { path: ['mcp'], widens: () => true, detail: 1 },
  // Hooks are commands to run (DESIGN §20): never from a project the user has not trusted.
  { path: ['hooks'], widens: () => true, detail: 1 },
  // Container hosts receive the project's files and run its commands (DESIGN §25).
  { path: ['runner'], widens: () => true, detail: 1 },
  // A mode that lets edits or everything run unasked (DESIGN §26) is the user's choice only.
  { path: ['permission_mode'], widens: (value) => !isPermissionMode(value) || loosensPermissions(value), detail: 0 },
  // "bubble" would turn a user's `approvals: deny` back into questions that `--yes` approves.
  { path: ['subagents', 'approvals'], widens: (value) => value !== 'deny', detail: 0 },
  // Sub-agent limits may only be lowered: 40 tasks at once, or children that never stop,
  // spend the user's money and machine.
  ...(['max_per_batch', 'max_concurrency', 'max_depth', 'max_turns', 'timeout_seconds'] as const).map((key) => ({
    path: ['subagents', key],
    widens: (value: unknown, trusted: unknown) => typeof value !== 'number' || value > (typeof trusted === 'number' ? trusted : subagentDefaults()[key]),
    detail: 0,
  })),
];

/**
 * The built-in sub-agent limits, what an untrusted project is measured against when the user
 * set none: from the build's table of defaults, since building the section's schema for them
 * cost every untrusted start ~5 ms.
 */
function subagentDefaults(): Readonly<Config['subagents']> {
  return defaultSetting('subagents');
}

/** The notice names this many changed files, then counts the rest. */
const MAX_CHANGED_NAMED = 10;

const SHELL_INLINE = /!`[^`\n]+`/;

/** A restriction as a ruleset: neutral (allow) wherever it says nothing. */
export function restrictionRuleset(restriction: PermissionConfig): Ruleset {
  return [{ permission: '*', pattern: '*', action: 'allow' }, ...rulesFromConfig(restriction)];
}

/** The extra rulesets an agent's session is checked against (strictest wins). */
export function restrictionRulesets(agent: Pick<AgentDefinition, 'restrictions'>): Ruleset[] {
  return (agent.restrictions ?? []).map(restrictionRuleset);
}

/** Splits a permission config into its allow rules (dropped) and the rest (kept). */
export function withoutAllow(permission: PermissionConfig): { kept: PermissionConfig | undefined; dropped: boolean } {
  const kept: PermissionConfig = {};
  let dropped = false;
  for (const [key, value] of Object.entries(permission)) {
    if (typeof value === 'string') {
      if (value === 'allow') dropped = true;
      else kept[key] = value;
      continue;
    }
    const patterns: Record<string, 'ask' | 'deny'> = {};
    for (const [pattern, action] of Object.entries(value)) {
      if (action === 'allow') dropped = true;
      else patterns[pattern] = action;
    }
    if (Object.keys(patterns).length > 0) kept[key] = patterns;
  }
  return { kept: Object.keys(kept).length > 0 ? kept : undefined, dropped };
}

function valueAt(data: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = data;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function leafPaths(value: unknown, prefix: string, depth: number): string[] {
  if (!isPlainObject(value) || depth === 0 || Object.keys(value).length === 0) return [prefix];
  return Object.entries(value).flatMap(([key, item]) => leafPaths(item, `${prefix}.${key}`, depth - 1));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keys of `after` that `before` did not have with the same value: what a project file wrote. */
function writtenPermission(after: PermissionConfig | undefined, before: PermissionConfig | undefined): PermissionConfig {
  const out: PermissionConfig = {};
  for (const [key, value] of Object.entries(after ?? {})) {
    if (!before || !Object.hasOwn(before, key) || !sameValue(before[key], value)) out[key] = value;
  }
  return out;
}

export interface NarrowAgentInput {
  /** The agent as the project file (or config entry) defines it. */
  candidate: AgentDefinition;
  /** The agent of that name before this file applied (trusted or already narrowed), if any. */
  before?: AgentDefinition | undefined;
  /** The trusted agent of that name (built-in, the user's files or config), if any. */
  trusted?: AgentDefinition | undefined;
  /** The file that defined it. */
  file: string;
}

/**
 * Collects what an untrusted project may not do and cuts it out; `ignored` then lists it.
 * Loaders receive one of these when the project is untrusted, and nothing when it is trusted.
 */
export class ProjectNarrowing {
  private readonly items: Array<{ what: string; file: string }> = [];
  /** `ask`/`deny` rules from the project's config files: they apply to every agent. */
  readonly restrictions: PermissionConfig[] = [];
  /** The `agent` entries of the project's config files (merged, nearer files winning), applied after the trusted ones. */
  readonly agentEntries = new Map<string, { entry: unknown; file: string }>();
  /** The `command` entries set by a project config file: name → that file. */
  readonly commandNames = new Map<string, string>();
  /** The most model requests a project agent may set: the configured sub-agent limit, once known. */
  private turnLimit = subagentDefaults().max_turns;
  /** What the project's config files ask of the sandbox; applied by `tightenSandbox`. */
  private readonly sandboxAsks: Array<{ file: string; mode?: SandboxMode; network?: false; autoAllow?: false; hide?: string[]; readProject?: true }> = [];

  /**
   * @param root the project root trust is recorded for (real path), named in the notice.
   * @param folder the same root as the loaders spell it (symlinks unresolved): files are named relative to it.
   * @param changed for a trusted project whose control files changed since they were pinned: those files, as named in the notice.
   */
  constructor(
    readonly root: string,
    private readonly folder: string = root,
    readonly changed: readonly string[] = [],
  ) {}

  /** What was cut, each once, in the order met: `provider.anthropic.baseURL (.opencoderc.json)`. */
  get ignored(): readonly string[] {
    return this.items.map(({ what, file }) => `${what} (${file})`);
  }

  private ignore(what: string, path: string): void {
    const file = this.name(path);
    if (!this.items.some((item) => item.what === what && item.file === file)) this.items.push({ what, file });
  }

  private name(file: string): string {
    if (file === 'config') return 'config';
    for (const base of [this.folder, this.root]) {
      const rel = relative(base, file);
      if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    }
    return file;
  }

  /** Claude Code's `.mcp.json` is not read at all: each server it names would be a program to start. */
  noteMcpJsonServers(file: string, names: readonly string[]): void {
    for (const name of names) this.ignore(`mcpServers.${name}`, file);
  }

  /** Hooks in the project's `.claude/settings*.json` are not run: each event named is a command that would start. */
  noteSettingsHooks(file: string, events: readonly string[]): void {
    for (const event of events) this.ignore(`hooks.${event}`, file);
  }

  /** Something a project file sets that only a trusted project may (Claude Code's settings `permissions.allow`, `env`). */
  noteIgnored(what: string, file: string): void {
    this.ignore(what, file);
  }

  /** Before validation: `{env:VAR}` is not expanded in a project file (it could copy secrets into prompts). */
  noteEnvReferences(file: string, text: string): void {
    if (/\{env:[A-Za-z_][A-Za-z0-9_]*\}/.test(text)) this.ignore('{env:…} values', file);
  }

  /**
   * Before validation: drops the widening keys of one project config file. `trusted` is the
   * user's own configuration (unvalidated, without defaults), which limits are measured against.
   */
  dropWideningKeys(file: string, data: Record<string, unknown>, trusted: Record<string, unknown> = {}): Record<string, unknown> {
    let out = data;
    for (const { path, widens, detail } of WIDENING_CONFIG_KEYS) {
      out = this.dropPath(out, path, (value) => {
        if (!widens(value, valueAt(trusted, path))) return false;
        for (const leaf of leafPaths(value, path.join('.'), detail)) this.ignore(leaf, file);
        return true;
      });
    }
    return out;
  }

  private dropPath(data: Record<string, unknown>, path: readonly string[], drop: (value: unknown) => boolean): Record<string, unknown> {
    const [head, ...rest] = path;
    if (head === undefined || !Object.hasOwn(data, head)) return data;
    const value = data[head];
    const out = { ...data };
    if (rest.length === 0) {
      if (drop(value)) delete out[head];
      return out;
    }
    if (isPlainObject(value)) out[head] = this.dropPath(value, rest, drop);
    return out;
  }

  /**
   * After validation: takes the `permission` and `agent` keys out of one project config file
   * (they are applied as restrictions and narrowed agents) and notes its commands.
   */
  takeProjectParts(file: string, data: Record<string, unknown>, permission: PermissionConfig | undefined): Record<string, unknown> {
    const out = { ...data };
    if (permission) {
      const { kept, dropped } = withoutAllow(permission);
      if (dropped) this.ignore('allow rules', file);
      if (kept) this.restrictions.push(kept);
      delete out.permission;
    }
    if (isPlainObject(data.agent)) {
      for (const [name, entry] of Object.entries(data.agent)) {
        const existing = this.agentEntries.get(name)?.entry;
        this.agentEntries.set(name, { entry: isPlainObject(existing) && isPlainObject(entry) ? deepMerge(existing, entry) : entry, file });
      }
      delete out.agent;
    }
    if (isPlainObject(data.command)) for (const name of Object.keys(data.command)) this.commandNames.set(name, file);
    if (isPlainObject(data.sandbox)) {
      this.takeSandbox(file, data.sandbox);
      delete out.sandbox;
    }
    return out;
  }

  private takeSandbox(file: string, sandbox: Record<string, unknown>): void {
    const ask: (typeof this.sandboxAsks)[number] = { file };
    const { mode, network, auto_allow: autoAllow, allow_write: allowWrite, hide, read, allow_read: allowRead } = sandbox;
    if (mode === 'off' || mode === 'read-only' || mode === 'workspace-write') ask.mode = mode;
    if (network === false) ask.network = false;
    else if (network === true) this.ignore('sandbox.network', file);
    if (autoAllow === false) ask.autoAllow = false;
    else if (autoAllow === true) this.ignore('sandbox.auto_allow', file);
    if (Array.isArray(allowWrite) && allowWrite.length > 0) this.ignore('sandbox.allow_write', file);
    // Hiding more and reading less only narrow what commands see; reading more is the user's call.
    if (Array.isArray(hide)) ask.hide = hide.filter((p): p is string => typeof p === 'string' && p !== '').map((p) => expandPath(p, homedir(), this.folder));
    if (read === 'project') ask.readProject = true;
    if (Array.isArray(allowRead) && allowRead.length > 0) this.ignore('sandbox.allow_read', file);
    this.sandboxAsks.push(ask);
  }

  /** The trusted sandbox settings, tightened as far as the project's config files ask; a looser mode is named as ignored. */
  tightenSandbox(settings: SandboxSettings): SandboxSettings {
    let out = settings;
    for (const ask of this.sandboxAsks) {
      if (ask.mode !== undefined && loosensMode(out.mode, ask.mode)) this.ignore('sandbox.mode', ask.file);
      else out = tightenSandbox(out, ask.mode, false);
      if (ask.network === false) out = { ...out, network: false };
      if (ask.autoAllow === false) out = { ...out, autoAllow: false };
      if (ask.hide?.length) out = { ...out, hide: [...(out.hide ?? []), ...ask.hide] };
      if (ask.readProject) out = { ...out, read: 'project' };
    }
    return out;
  }

  /** After the configuration is read: the `subagents.max_turns` project agents are measured against. */
  limitAgentTurns(maxTurns: number): void {
    this.turnLimit = maxTurns;
  }

  /** A project agent, cut down so it can only narrow what the trusted agent of its name may do. */
  agent({ candidate, before, trusted, file }: NarrowAgentInput): AgentDefinition {
    const out: AgentDefinition = { ...candidate };
    const label = `agent ${candidate.name}`;
    const { kept, dropped } = withoutAllow(writtenPermission(candidate.permission, before?.permission));
    // A file that would drop rules of the trusted agent it replaces (plan's `edit: deny`) is
    // cut as much as one that adds `allow` rules: the trusted rules stay either way.
    const replacesRules = Object.entries(trusted?.permission ?? {}).some(([key, value]) => !sameValue(candidate.permission?.[key], value));
    if (trusted && (dropped || replacesRules)) this.ignore(`${label} permissions`, file);
    else if (dropped) this.ignore(`allow rules of ${label}`, file);
    if (trusted?.permission) out.permission = trusted.permission;
    else delete out.permission;
    if (kept) out.restrictions = [...(candidate.restrictions ?? []), kept];
    // `sandbox:` can only tighten anyway; from an untrusted file it does not auto-allow either.
    if (candidate.sandbox !== undefined && candidate.sandbox !== trusted?.sandbox) out.untrustedSandbox = true;
    // `runner: host` would take the agent's commands out of the containers the user chose for them.
    if (candidate.runner === 'host' && trusted?.runner !== 'host') {
      this.ignore(`${label} runner`, file);
      if (trusted?.runner) out.runner = trusted.runner;
      else delete out.runner;
    }
    // A memory folder is written without asking: an untrusted file cannot grant that.
    if (candidate.memory !== undefined && candidate.memory !== trusted?.memory) {
      this.ignore(`${label} memory`, file);
      if (trusted?.memory) out.memory = trusted.memory;
      else delete out.memory;
    }
    // A hook is a command run on this machine, outside any sandbox: an untrusted file cannot add one.
    if (candidate.hooks !== undefined && candidate.hooks !== trusted?.hooks) {
      this.ignore(`${label} hooks`, file);
      if (trusted?.hooks) out.hooks = trusted.hooks;
      else delete out.hooks;
    }
    // A server of its own is a program started on this machine (or a URL sent requests): an untrusted file cannot add one.
    if (candidate.mcpServers !== undefined && candidate.mcpServers !== trusted?.mcpServers) {
      for (const name of Object.keys(candidate.mcpServers)) this.ignore(`${label} mcpServers.${name}`, file);
      if (trusted?.mcpServers) out.mcpServers = trusted.mcpServers;
      else delete out.mcpServers;
    }
    // `max_turns: 10000` in a repository's agent file would let its children run on the
    // user's money far past the limit the user set.
    const turnLimit = trusted?.maxTurns ?? this.turnLimit;
    if (candidate.maxTurns !== undefined && candidate.maxTurns > turnLimit) {
      this.ignore(`${label} max_turns`, file);
      out.maxTurns = turnLimit;
    }
    if (!trusted) return out;

    // The mode stays too (a file without `mode:` would otherwise turn a primary into `all`).
    out.mode = trusted.mode;
    const tools = narrowTools(trusted, candidate);
    if (tools.widened) this.ignore(`${label} tools`, file);
    if (tools.tools) out.tools = tools.tools;
    else delete out.tools;
    if (tools.disabled.length > 0) out.disabledTools = tools.disabled;
    else delete out.disabledTools;
    return out;
  }

  /**
   * A project command: it loads, but its `` !`cmd` `` lines will be refused, and its
   * `allowed-tools` let nothing run unasked (named once; the entries stay listed).
   */
  command(command: CommandDefinition): CommandDefinition {
    let out = command;
    if (out.grants) {
      this.ignore(`allowed-tools of /${out.name}`, out.source);
      const { grants: _dropped, ...rest } = out;
      out = rest;
    }
    return SHELL_INLINE.test(out.template) ? { ...out, untrusted: true } : out;
  }

  /**
   * A project skill without its `allowed-tools` grants (named once): they would let tools run
   * unasked while it is active, which only a trusted project may. The entries stay listed.
   */
  skill(skill: SkillDefinition): SkillDefinition {
    if (skill.origin !== 'project' || !skill.grants) return skill;
    this.ignore(`allowed-tools of skill "${skill.name}"`, skill.file);
    const { grants: _dropped, ...rest } = skill;
    return rest;
  }

  /** Names a marked command that is in use (one a user's command of the same name replaced is not). */
  noteCommand(command: CommandDefinition): void {
    if (!command.untrusted) return;
    this.ignore(`!\`…\` in /${command.name}`, command.source === 'config' ? (this.commandNames.get(command.name) ?? 'config') : command.source);
  }

  /** The one line naming what changed or was ignored, and how to trust; undefined when nothing did. */
  notice(): string | undefined {
    // Grouped by file, in the order met: `a, b (.opencoderc.json); c (.opencode/agents/build.md)`.
    const files = [...new Set(this.items.map((item) => item.file))];
    const groups = files.map((file) => `${this.items.filter((item) => item.file === file).map((item) => item.what).join(', ')} (${file})`);
    if (this.changed.length > 0) {
      const shown = this.changed.slice(0, MAX_CHANGED_NAMED);
      const more = this.changed.length > shown.length ? `, and ${this.changed.length - shown.length} more` : '';
      const ignored = groups.length > 0 ? ` Ignored meanwhile: ${groups.join('; ')}.` : '';
      return (
        `Project files changed since you trusted ${this.root}: ${shown.join(', ')}${more}. ` +
        `Until you trust it again ("opencode-ink trust"), its files can only narrow what is allowed.${ignored}`
      );
    }
    if (this.items.length === 0) return undefined;
    return `Project not trusted: ignored ${groups.join('; ')}. Run "opencode-ink trust" to trust ${this.root}.`;
  }
}

/** Tools a project file may take away from a trusted agent, never add. */
function narrowTools(trusted: AgentDefinition, candidate: AgentDefinition): { tools?: string[]; disabled: string[]; widened: boolean } {
  let widened = false;
  let tools: string[] | undefined;
  if (trusted.tools && candidate.tools) {
    tools = candidate.tools.filter((name) => trusted.tools?.includes(name));
    widened = tools.length < candidate.tools.length;
  } else if (trusted.tools) {
    tools = trusted.tools;
    widened = true;
  } else {
    tools = candidate.tools;
  }
  const disabled = [...new Set([...(trusted.disabledTools ?? []), ...(candidate.disabledTools ?? [])])];
  if ((trusted.disabledTools ?? []).some((name) => !candidate.disabledTools?.includes(name))) widened = true;
  return { ...(tools ? { tools } : {}), disabled, widened };
}
