// The `env` of a Claude Code settings file, as variables for the commands our tools run.
// Provider settings are refused: in Claude Code `env` also configures Claude Code itself
// (`ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`), but here providers are configured only in
// opencode-ink's own config, and a key placed in every command's environment is a key any
// command the model runs can read (tools/child-env.ts keeps those out for the same reason).
import { SECRET_VARIABLES } from '../tools/child-env.js';

/** Names that configure or authenticate a model provider. */
export function isProviderVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (SECRET_VARIABLES.includes(upper)) return true;
  if (upper.startsWith('ANTHROPIC_') || upper.startsWith('OPENAI_')) return true;
  return /_(API_KEY|AUTH_TOKEN|BASE_URL|API_BASE)$/.test(upper);
}

export interface SettingsEnv {
  env: Record<string, string>;
  /** Provider variables left out. */
  refused: string[];
  /** Entries whose value is not a string, number or boolean, or whose name is not a variable name. */
  invalid: string[];
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function settingsEnv(values: Record<string, unknown>): SettingsEnv {
  const out: SettingsEnv = { env: {}, refused: [], invalid: [] };
  for (const [name, value] of Object.entries(values)) {
    if (!VARIABLE_NAME.test(name) || !['string', 'number', 'boolean'].includes(typeof value)) {
      out.invalid.push(name);
      continue;
    }
    if (isProviderVariable(name)) {
      out.refused.push(name);
      continue;
    }
    out.env[name] = String(value);
  }
  return out;
}
