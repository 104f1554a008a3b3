// The configuration's schemas as zod objects (DESIGN §3), every key built, for the UI, the
// library and tests. Reading the configuration does not import this module: it builds only
// the keys a file sets (sections.ts, where the schemas are defined).
import {
  checkpointSettingsSchema,
  commandConfigSchema,
  compactionSchema,
  fullConfigFileSchema,
  fullConfigSchema,
  isolationSchema,
  keybindsSchema,
  notifySettingsSchema,
  subagentSettingsSchema,
  teamSettingsSchema,
  worktreeSettingsSchema,
} from './sections.js';
import type * as z from 'zod';

import { modelLimitSchema } from './provider-schema.js';
export { DEFAULT_AGENT, DEFAULT_KEYBINDS, DEFAULT_MODEL } from './sections.js';
export type { Config, ConfigInput } from './sections.js';

export const ModelLimitSchema = modelLimitSchema();
export const CompactionSchema = compactionSchema();
export const CommandConfigSchema = commandConfigSchema();
export const WorktreeSettingsSchema = worktreeSettingsSchema();
export const IsolationSchema = isolationSchema();
export const SubagentSettingsSchema = subagentSettingsSchema();
export const TeamSettingsSchema = teamSettingsSchema();
export const KeybindsSchema = keybindsSchema();
export const CheckpointSettingsSchema = checkpointSettingsSchema();
export const NotifySettingsSchema = notifySettingsSchema();
/** One config file on its own (the rules about a whole provider entry are checked on the merged result). */
export const ConfigFileSchema = fullConfigFileSchema();
/** The whole configuration: the files merged, each provider complete. */
export const ConfigSchema = fullConfigSchema();

export type CommandConfig = z.output<typeof CommandConfigSchema>;
export type CompactionSettings = z.output<typeof CompactionSchema>;
export type CheckpointSettings = z.output<typeof CheckpointSettingsSchema>;
