// `--agents '<json>'`: sub-agents for this start only, as Claude Code's flag defines them —
// `{"reviewer": {"description": "…", "prompt": "…", "tools": ["Read"], "model": "sonnet"}}`.
// Each entry takes the fields of an agent file (plus `prompt`) and applies like the config's
// `agent` key, last (agents/index.ts); a new name without `mode` is a sub-agent. Bad input is one sentence naming the
// flag, and the caller exits 2 (ConfigError).
import { describeIssue } from '../config/issues.js';
import { ConfigError } from '../errors.js';
import { unknownFields } from './markdown.js';
import { agentConfigEntrySchema, type AgentConfigEntry } from './schema.js';

export const AGENTS_FLAG = '--agents';

export function parseAgentsFlag(text: string): Record<string, AgentConfigEntry> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${AGENTS_FLAG} is not valid JSON (${err instanceof Error ? err.message : String(err)}); expected an object of agents by name, e.g. {"reviewer": {"description": "Reviews code", "prompt": "You review code."}}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${AGENTS_FLAG} must be a JSON object of agents by name, e.g. {"reviewer": {"description": "Reviews code", "prompt": "You review code."}}.`);
  }
  const agents: Record<string, AgentConfigEntry> = {};
  for (const [name, raw] of Object.entries(value)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) throw new ConfigError(`${AGENTS_FLAG}: ${JSON.stringify(name.slice(0, 80))} is not an agent name (letters, digits, ".", "_" and "-").`);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${AGENTS_FLAG}: agent "${name}" must be an object of fields, such as {"description": "…", "prompt": "…"}.`);
    const fields = raw as Record<string, unknown>;
    // A flag just typed: a misspelt field is an error, not a warning scrolled away.
    const unknown = unknownFields(fields).filter((key) => key !== 'prompt');
    if (unknown.length > 0) throw new ConfigError(`${AGENTS_FLAG}: agent "${name}" has the unknown field "${unknown[0]}" (not a field of Claude Code's agents).`);
    const parsed = agentConfigEntrySchema().safeParse(fields, { jitless: true });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(`${AGENTS_FLAG}: agent "${name}": ${issue ? describeIssue(agentConfigEntrySchema(), fields, issue) : 'invalid fields'}.`);
    }
    agents[name] = parsed.data;
  }
  return agents;
}
