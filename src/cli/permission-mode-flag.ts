// `--permission-mode <mode>` and `--yes` on `run`, `-p` and the TUI (DESIGN §26): the mode
// sessions start in. `--yes` is `bypassPermissions`; a name that is not a mode, or `--yes`
// with another mode, is a usage error in one sentence (exit 2).
import { ConfigError } from '../core/errors.js';
import { badModeMessage, isPermissionMode, type PermissionMode } from '../core/permission/modes.js';

export function permissionModeFlag(value: string | undefined, yes: boolean): PermissionMode | undefined {
  if (value === undefined) return yes ? 'bypassPermissions' : undefined;
  if (!isPermissionMode(value)) throw new ConfigError(badModeMessage('--permission-mode', value));
  if (yes && value !== 'bypassPermissions') throw new ConfigError(`--yes means --permission-mode bypassPermissions, so it cannot go with --permission-mode ${value}; give one of them.`);
  return value;
}
