// Where configuration and data live (DESIGN §2): an explicit override, then the XDG base
// directory, then the XDG fallback under the home folder. Empty variables count as unset,
// as the XDG spec asks, so `XDG_CONFIG_HOME= opencode-ink` behaves like no variable.
import { homedir } from 'node:os';
import { join } from 'node:path';

const APP = 'opencode-ink';

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.length > 0 ? value : undefined;
}

function home(env: NodeJS.ProcessEnv): string {
  return nonEmpty(env.HOME) ?? homedir();
}

export function configDir(env: NodeJS.ProcessEnv): string {
  const explicit = nonEmpty(env.OPENCODE_INK_CONFIG_DIR);
  if (explicit) return explicit;
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  return xdg ? join(xdg, APP) : join(home(env), '.config', APP);
}

export function dataDir(env: NodeJS.ProcessEnv): string {
  const explicit = nonEmpty(env.OPENCODE_INK_DATA_DIR);
  if (explicit) return explicit;
  const xdg = nonEmpty(env.XDG_DATA_HOME);
  return xdg ? join(xdg, APP) : join(home(env), '.local', 'share', APP);
}

/** Where Claude Code and OpenCode keep a user's own agents, commands and instructions. */
export interface PeerUserDirs {
  /** `~/.claude` */
  claude: string;
  /** `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode` */
  opencode: string;
}

export function peerUserDirs(env: NodeJS.ProcessEnv): PeerUserDirs {
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  return { claude: join(home(env), '.claude'), opencode: xdg ? join(xdg, 'opencode') : join(home(env), '.config', 'opencode') };
}
