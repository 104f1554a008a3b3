// An agent's `permissionMode` (Claude Code's front-matter field, or the same key in a config
// entry): one of the permission modes of DESIGN §26. It can only tighten: the engine checks a
// session against its parent's mode too (permission/modes.ts), so a file, trusted or not, never
// loosens what its parent may do. A value that is not a mode is named in a warning and the
// agent loads without it (it then runs in its parent's mode).
import { badModeMessage, isPermissionMode } from '../permission/modes.js';
import type { AgentDefinition } from './definition.js';

/** Sets `agent.permissionMode` from the field as written; returns the warning for a bad value. */
export function applyPermissionMode(agent: AgentDefinition, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (isPermissionMode(raw)) {
    agent.permissionMode = raw;
    return undefined;
  }
  return `${badModeMessage('permissionMode', raw).slice(0, -1)}; ignored, so the agent runs in its parent's mode.`;
}
