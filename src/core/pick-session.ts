// Which root session `run` and the TUI work in: `-s <id>`, `-c` (the most recent root in
// this folder) or a new one. Every front end calls this, so they accept and refuse the same ids.
//
// A sub-agent's session is refused (exit 2, naming its root): continued on its own it would
// run as a root, without its parent chain in `path` and without its ancestors' permission
// rules, which a child must never escape (DESIGN §7, gate B).
import type { Engine } from './engine.js';
import { ConfigError } from './errors.js';
import type { SessionRow } from './store/index.js';

export interface SessionChoice {
  /** `-s, --session <id>`. */
  session?: string;
  /** `-c, --continue`. */
  continue?: boolean;
  /** `--agent`, for a new session. */
  agent?: string;
}

type SessionSource = Pick<Engine, 'getSession' | 'resolveSessionId' | 'mostRecentRoot' | 'createSession'>;

/** The full id of the session `text` names (an id or a unique prefix); ConfigError otherwise. */
export function sessionIdFrom(source: Pick<SessionSource, 'resolveSessionId'>, text: string, listing: string): string {
  const match = source.resolveSessionId(text);
  if (match.kind === 'found') return match.id;
  if (match.kind === 'ambiguous') {
    throw new ConfigError(`Session id "${text}" matches more than one session (${match.ids.join(', ')}, …); give more characters (see ${listing}).`);
  }
  throw new ConfigError(`No session with id "${text}" (see ${listing}).`);
}

/** Resolves to the id of the root session to work in; throws ConfigError for an id it cannot use. */
export function pickSession(engine: SessionSource, choice: SessionChoice): string {
  if (choice.session !== undefined) {
    const row = engine.getSession(sessionIdFrom(engine, choice.session, 'opencode-ink sessions'));
    if (!row) throw new ConfigError(`No session with id "${choice.session}" (see opencode-ink sessions).`);
    if (row.parent_id) {
      const root = rootOf(engine, row);
      throw new ConfigError(
        `Session "${row.id}" is a sub-agent session (@${row.agent}) and cannot be continued on its own; continue its root session instead: -s ${root.id}`,
      );
    }
    return row.id;
  }
  if (choice.continue) {
    const recent = engine.mostRecentRoot();
    if (recent) return recent.id;
  }
  return engine.createSession(choice.agent ? { agent: choice.agent } : {}).id;
}

/** The topmost stored ancestor; a cycle (only a hand-edited database could hold one) stops the walk. */
function rootOf(engine: SessionSource, row: SessionRow): SessionRow {
  const seen = new Set<string>([row.id]);
  let current = row;
  while (current.parent_id && !seen.has(current.parent_id)) {
    const parent = engine.getSession(current.parent_id);
    if (!parent) break;
    seen.add(parent.id);
    current = parent;
  }
  return current;
}
