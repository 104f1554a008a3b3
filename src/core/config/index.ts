// Configuration (DESIGN §3): where it lives, its schema and how the files combine.
export { configDir, dataDir } from './paths.js';
export { loadConfig, readConfigFile, projectConfigDirs, GLOBAL_CONFIG_FILE, PROJECT_CONFIG_FILE } from './load.js';
export type { LoadConfigOptions, LoadedConfig } from './load.js';
export {
  ConfigSchema,
  CommandConfigSchema,
  CompactionSchema,
  KeybindsSchema,
  ModelLimitSchema,
  SubagentSettingsSchema,
  DEFAULT_AGENT,
  DEFAULT_KEYBINDS,
  DEFAULT_MODEL,
} from './schema.js';
export type { CommandConfig, CompactionSettings, Config, ConfigInput } from './schema.js';
export { describeIssue, formatPath } from './issues.js';
export { JsoncSyntaxError, parseJsonc, type JsonValue } from './jsonc.js';
