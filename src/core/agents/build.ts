// Applies agent fields (front-matter or a config entry) onto a definition. Files build on
// an empty skeleton; config entries build on whatever agent of that name was loaded, so a
// config can change one field of a built-in without repeating its prompt.
import type { AgentDefinition } from './definition.js';
import type { PermissionConfig } from '../permission/schema.js';
import type { AgentConfigEntry, AgentMode } from './schema.js';
import { isEmptyHookSet, parseHooks } from '../hooks/config.js';
import { claudeServerConfig, mcpServerConfigSchema, type McpServerConfig } from '../mcp/config.js';
import { sanitizeName } from '../mcp/names.js';
import { EFFORT_LEVELS, effortOnWire, parseEffort, type Effort } from '../provider/effort.js';
import { resolveModelName } from '../provider/models.js';
import { readAgentColor } from './color.js';
import { applyPermissionMode } from './permission-mode.js';
import { MEMORY_SCOPES } from './schema.js';
import { allowlistPattern, isWholeScope, scopedKey, scopePatterns, selectionWarnings, selectTools, splitList, splitScope } from './tools.js';

export function skeleton(name: string, mode: AgentMode, source: string): AgentDefinition {
  return { name, mode, description: '', prompt: '', hidden: false, disable: false, source };
}

export interface Applied {
  agent: AgentDefinition;
  /** What the file's `tools` said that could not be applied as written (scopes, an empty list); unknown names are in `unknownTools`. */
  warnings: string[];
  /**
   * Tool names we do not have, as written. Kept apart from `warnings` because a folder of
   * Claude Code agents names many of them, and the CLI sums them up in one line.
   */
  unknownTools: string[];
}

/** `extraTools`: names of tools a program added, which `tools` may name like built-ins. */
export function applyFields(base: AgentDefinition, fields: AgentConfigEntry, extraTools: readonly string[] = []): Applied {
  const agent: AgentDefinition = { ...base };
  if (fields.description !== undefined) agent.description = fields.description;
  if (fields.mode !== undefined) agent.mode = fields.mode;
  if (fields.model !== undefined) agent.model = fields.model;
  if (fields.temperature !== undefined) agent.temperature = fields.temperature;
  if (fields.top_p !== undefined) agent.top_p = fields.top_p;
  if (fields.hidden !== undefined) agent.hidden = fields.hidden;
  if (fields.disable !== undefined) agent.disable = fields.disable;
  if (fields.disabled !== undefined) agent.disable = fields.disabled;
  if (fields.background !== undefined) agent.background = fields.background;
  if (fields.prompt !== undefined) agent.prompt = fields.prompt;
  if (fields.isolation !== undefined) agent.isolation = fields.isolation;
  if (fields.sandbox !== undefined) agent.sandbox = fields.sandbox;
  if (fields.runner !== undefined) agent.runner = fields.runner;
  if (fields.skills !== undefined) agent.skills = skillNames(fields.skills);
  const maxTurns = fields.max_turns ?? fields.steps ?? fields.maxTurns ?? fields.maxSteps;
  if (maxTurns !== undefined) agent.maxTurns = maxTurns;
  // Per permission key, so `{ bash: deny }` in the config keeps the file's `edit` rule.
  if (fields.permission !== undefined) agent.permission = { ...base.permission, ...fields.permission };

  let warnings: string[] = [];
  let unknownTools: string[] = [];
  if (fields.tools !== undefined) {
    const selection = selectTools(fields.tools, extraTools);
    unknownTools = selection.unknown;
    warnings = selectionWarnings({ ...selection, unknown: [] });
    if (selection.permission) agent.permission = withScopes(selection.permission, agent.permission);
    if (selection.allow) {
      agent.tools = selection.allow;
      delete agent.disabledTools;
    } else {
      // A map switches single tools on or off without replacing the allowlist.
      const disabled = new Set([...(base.disabledTools ?? []), ...selection.disable]);
      for (const name of selection.enable) disabled.delete(name);
      if (disabled.size > 0) agent.disabledTools = [...disabled];
      else delete agent.disabledTools;
      if (base.tools) {
        const missing = selection.enable.filter((name) => !base.tools?.includes(name));
        if (missing.length > 0) agent.tools = [...base.tools, ...missing];
      }
    }
  }
  if (fields.color !== undefined) {
    const color = readAgentColor(fields.color);
    if (color.ok) agent.color = color.color;
    else warnings.push(color.warning);
  }
  const modeWarning = applyPermissionMode(agent, fields.permissionMode);
  if (modeWarning !== undefined) warnings.push(modeWarning);
  if (fields.disallowedTools !== undefined) {
    const taken = disallow(agent, fields.disallowedTools, extraTools);
    unknownTools = [...unknownTools, ...taken.unknown.filter((name) => !unknownTools.includes(name))];
    warnings.push(...taken.warnings);
  }
  if (fields.memory !== undefined) {
    const scope = MEMORY_SCOPES.find((s) => s === fields.memory);
    if (scope) agent.memory = scope;
    else warnings.push(`ignoring "memory: ${fields.memory}": expected user, project or local, so it has no memory folder.`);
  }
  if (fields.hooks !== undefined) {
    // Read as a settings file's `hooks` (Claude Code's shape); what cannot run is named, the rest applies.
    const parsed = parseHooks(fields.hooks, agent.source);
    warnings.push(...parsed.warnings.map((warning) => warning.replace(`${agent.source}: `, '')));
    if (isEmptyHookSet(parsed.hooks)) delete agent.hooks;
    else agent.hooks = parsed.hooks;
  }
  if (fields.mcpServers !== undefined) warnings.push(...applyMcpServers(agent, fields.mcpServers));
  if (fields.effort !== undefined) {
    const effort = parseEffort(fields.effort);
    if (effort) agent.effort = effort;
    else warnings.push(`ignoring "effort: ${String(fields.effort).slice(0, 40)}": expected ${EFFORT_LEVELS.join(', ')}.`);
  }
  if ((fields.effort !== undefined || fields.model !== undefined) && agent.effort) {
    const unapplied = effortModelWarning(agent.effort, agent.model);
    if (unapplied) warnings.push(unapplied);
  }
  return { agent, warnings, unknownTools };
}

/** A team's message tool (DESIGN §24), as `SendMessage` in Claude Code's files. */
const TEAM_MESSAGE_TOOL = 'send_message';

/**
 * Claude Code's `disallowedTools`, applied after `tools`: a plain name or glob takes the tool
 * away; a scoped entry (`Bash(rm:*)`, `Agent(reviewer)`) becomes deny rules written after the
 * agent's own, so it wins over them. A scope we cannot read denies the whole tool.
 */
function disallow(agent: AgentDefinition, field: string | string[], extraTools: readonly string[]): { unknown: string[]; warnings: string[] } {
  const entries = (typeof field === 'string' ? splitList(field) : field.map((e) => e.trim())).filter((e) => e.length > 0);
  const unknown: string[] = [];
  const warnings: string[] = [];
  const removed = new Set(agent.disabledTools ?? []);
  const denies: PermissionConfig = {};
  for (const entry of entries) {
    const pattern = allowlistPattern(entry, extraTools);
    if (!pattern) {
      unknown.push(entry);
      continue;
    }
    // The tool gate gives `send_message` to every team member, past disabledTools; only a deny rule takes it away.
    if (pattern === TEAM_MESSAGE_TOOL) denies[TEAM_MESSAGE_TOOL] = 'deny';
    const { scope } = splitScope(entry);
    const key = scopedKey(pattern);
    if (scope === undefined || isWholeScope(scope) || !key) {
      if (scope !== undefined && !isWholeScope(scope)) warnings.push(`"${entry}" in disallowedTools: only Bash, Edit, Write, WebFetch and Task can be scoped, so the whole tool is taken away.`);
      removed.add(pattern);
      continue;
    }
    const patterns = scopePatterns(key, scope);
    if (!patterns || patterns.length === 0) {
      warnings.push(`cannot read the scope of "${entry}" in disallowedTools, so the whole tool is taken away.`);
      removed.add(pattern);
      continue;
    }
    const rules = denies[key];
    const own = typeof rules === 'object' ? rules : {};
    denies[key] = { ...own, ...Object.fromEntries(patterns.map((p) => [p, 'deny' as const])) };
  }
  if (removed.size > 0) agent.disabledTools = [...removed];
  for (const [key, rules] of Object.entries(denies)) {
    const mine = agent.permission?.[key];
    agent.permission = { ...agent.permission, [key]: { ...(typeof mine === 'string' ? { '*': mine } : mine), ...(typeof rules === 'string' ? { '*': rules } : rules) } };
  }
  return { unknown, warnings };
}

/**
 * `mcpServers`, in Claude Code's forms: a list whose items are a server's name or
 * `{ <name>: <server> }`, a map of name → server, or a comma string of names. A name is one of
 * the configured servers (the config's `mcp` key, `.mcp.json`), whose tools every agent already
 * has unless its `tools` list leaves them out — so a listed name is added to that list. A server
 * written out (`command`/`args`/`env`, or `type`/`url`/`headers`) is this agent's own: started
 * for each of its sessions alone (engine/agent-mcp.ts). What cannot be read is named and skipped.
 */
function applyMcpServers(agent: AgentDefinition, field: unknown): string[] {
  const warnings: string[] = [];
  const names: string[] = [];
  const own: Record<string, McpServerConfig> = {};
  const addOwn = (name: string, value: unknown) => {
    if (!SERVER_NAME.test(name)) {
      warnings.push(`ignoring the server "${name.slice(0, 40)}" of "mcpServers": a server's name may hold only letters, digits, ".", "_" and "-".`);
      return;
    }
    if (own[name] !== undefined) warnings.push(`"mcpServers" defines the server "${name}" twice; the last one is used.`);
    const parsed = ownServerConfig(value);
    if ('config' in parsed) own[name] = parsed.config;
    else warnings.push(`ignoring the server "${name}" of "mcpServers"${parsed.problem}.`);
  };
  const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isRecord(field)) {
    for (const [name, value] of Object.entries(field)) addOwn(name, value);
  } else {
    const entries = Array.isArray(field) ? (field as unknown[]) : typeof field === 'string' ? field.split(',') : [field];
    for (const entry of entries) {
      if (typeof entry === 'string') {
        const name = entry.trim();
        if (SERVER_NAME.test(name)) names.push(name);
        else if (name.length > 0) warnings.push(`ignoring the entry "${name.slice(0, 40)}" of "mcpServers": expected a server's name or { <name>: { command, args, env } }.`);
      } else if (isRecord(entry) && typeof entry.name === 'string' && (entry.command !== undefined || entry.url !== undefined)) {
        // `- name: local` followed by the server's own keys, as some files write it.
        const { name, ...server } = entry;
        addOwn(name, server);
      } else if (isRecord(entry) && Object.keys(entry).length > 0) {
        for (const [name, value] of Object.entries(entry)) addOwn(name, value);
      } else {
        warnings.push(`ignoring the entry ${(JSON.stringify(entry) ?? String(entry)).slice(0, 40)} of "mcpServers": expected a server's name or { <name>: { command, args, env } }.`);
      }
    }
  }
  const ownNames = Object.keys(own);
  if (ownNames.length > 0) agent.mcpServers = own;
  else delete agent.mcpServers;
  if (names.length > 0) agent.mcpServerNames = names;
  else delete agent.mcpServerNames;
  const listed = [...names, ...ownNames];
  if (agent.tools && listed.length > 0) agent.tools = [...new Set([...agent.tools, ...listed.map((name) => `mcp__${sanitizeName(name).toLowerCase()}__*`)])];
  return warnings;
}

const SERVER_NAME = /^[A-Za-z0-9_.-]+$/;

/** Claude Code's server form, or ours (`type: local|remote`, as under the config's `mcp` key). */
function ownServerConfig(value: unknown): { config: McpServerConfig } | { problem: string } {
  const ours = mcpServerConfigSchema().safeParse(value);
  if (ours.success) return { config: ours.data };
  return claudeServerConfig(value, process.env);
}

/**
 * An `effort` its own model (named, not `inherit`) does not take; an inherited model is only
 * known when a session opens, which then says so once (engine/session-factory.ts).
 */
export function effortModelWarning(effort: Effort, model: string | undefined): string | undefined {
  if (model === undefined || model.trim().toLowerCase() === 'inherit') return undefined;
  const resolved = resolveModelName(model);
  return effortOnWire(resolved, effort) ? undefined : `"effort: ${effort}" is not applied: ${resolved} takes no effort setting.`;
}

/**
 * Rules from scoped tools (`Bash(git log:*)`) go under the agent's own `permission` rules for
 * the same key, which are written later and so refine them; a plain action (`bash: ask`)
 * takes the place of the scopes' catch-all `*: deny`.
 */
function withScopes(scopes: PermissionConfig, own: PermissionConfig | undefined): PermissionConfig {
  const merged: PermissionConfig = { ...own };
  for (const [key, rules] of Object.entries(scopes)) {
    const mine = own?.[key];
    merged[key] = { ...(typeof rules === 'string' ? { '*': rules } : rules), ...(typeof mine === 'string' ? { '*': mine } : mine) };
  }
  return merged;
}

/** `skills: pdf, brand-*` | `[pdf]` → names; `none`, a blank string or `[]` → no skill at all. */
function skillNames(field: string | string[]): string[] {
  const entries = (typeof field === 'string' ? field.split(',') : field).map((name) => name.trim()).filter((name) => name.length > 0);
  return entries.length === 1 && entries[0]!.toLowerCase() === 'none' ? [] : entries;
}
