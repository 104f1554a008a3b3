// Forward-only migrations, applied in order and recorded in PRAGMA user_version. Never edit
// a shipped migration: append a new one, so every existing sessions.db can be upgraded.
import type Database from 'better-sqlite3';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_id TEXT NULL REFERENCES sessions(id),
    agent TEXT NOT NULL,
    title TEXT NOT NULL,
    task_description TEXT NULL,
    tool_call_id TEXT NULL,
    status TEXT NOT NULL,
    model TEXT NOT NULL,
    cwd TEXT NOT NULL,
    depth INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0,
    error TEXT NULL,
    owner_pid INTEGER NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX sessions_parent ON sessions(parent_id);
  CREATE INDEX sessions_roots ON sessions(updated_at) WHERE parent_id IS NULL;

  CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    input_tokens INTEGER NULL,
    output_tokens INTEGER NULL,
    cost REAL NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
  );

  CREATE TABLE todos (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id),
    items TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // 2: a sub-agent's ad-hoc identity (`task.system_prompt`), kept so a resume keeps it.
  `ALTER TABLE sessions ADD COLUMN system_prompt TEXT NULL;`,
  // 3: one writer per session across processes (lease.ts): the owner renews expires_at while it
  // holds the session; a lease whose owner died on this host, or that expired, is taken over.
  `
  CREATE TABLE leases (
    session_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  `,
  // 4: checkpoints (DESIGN §18). A prompt message keeps the snapshot of the project's files
  // taken before it and the one taken when its turn ended; undone messages stay, hidden from
  // the model. A session keeps the snapshots taken when it started and when it ended.
  `
  ALTER TABLE messages ADD COLUMN prompt INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE messages ADD COLUMN snapshot_before TEXT NULL;
  ALTER TABLE messages ADD COLUMN snapshot_after TEXT NULL;
  ALTER TABLE messages ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN snapshot_start TEXT NULL;
  ALTER TABLE sessions ADD COLUMN snapshot_end TEXT NULL;
  `,
  // 5: which session changed which file, and when (DESIGN §18). Sub-agents running side by
  // side in one tree share their snapshot windows; these records let a revert or a diff keep
  // to one session's own files. A session also keeps when its snapshot window opened and
  // closed (milliseconds), to tell which other sessions' changes fell inside it.
  `
  ALTER TABLE sessions ADD COLUMN snapshot_start_at INTEGER NULL;
  ALTER TABLE sessions ADD COLUMN snapshot_end_at INTEGER NULL;
  CREATE TABLE file_changes (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    project TEXT NOT NULL,
    path TEXT NOT NULL,
    from_at INTEGER NOT NULL,
    to_at INTEGER NOT NULL,
    source TEXT NOT NULL
  );
  CREATE INDEX file_changes_window ON file_changes(project, to_at);
  CREATE INDEX file_changes_session ON file_changes(session_id);
  `,
  // 6: the team's shared task list (DESIGN §24), one per root session (team/task-store.ts).
  // Ids are "1", "2", … per list, handed out by a counter that never goes back, so an id a
  // hook refused is never reused. A task is `creating` while its TaskCreated hooks run:
  // nobody sees it until they let it through.
  `
  CREATE TABLE team_task_counters (
    root_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    last_id INTEGER NOT NULL
  );
  CREATE TABLE team_tasks (
    root_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    title TEXT NOT NULL,
    description TEXT NULL,
    status TEXT NOT NULL,
    owner TEXT NULL,
    owner_session_id TEXT NULL,
    blocked_by TEXT NOT NULL DEFAULT '[]',
    result TEXT NULL,
    created_by TEXT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (root_id, id)
  );
  CREATE INDEX team_tasks_owner ON team_tasks(owner_session_id) WHERE owner_session_id IS NOT NULL;
  `,
  // 7: requests a permission mode let run without asking anyone (DESIGN §26), so
  // `sessions show` can tell what ran unasked and under which mode.
  `
  CREATE TABLE permission_auto (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    mode TEXT NOT NULL,
    tool TEXT NOT NULL,
    permission TEXT NOT NULL,
    subject TEXT NOT NULL,
    call_id TEXT NULL
  );
  CREATE INDEX permission_auto_session ON permission_auto(session_id);
  `,
  // 8: teammates and their messages (DESIGN §24, team/member-store.ts). A teammate is a child
  // session of its lead known by a name unique within its root's team; its state is stored
  // so `-c`, a compaction or a crash never loses it. A message stays undelivered until the
  // turn that reads it starts.
  `
  CREATE TABLE team_members (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    root_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    lead_id TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    spawn TEXT NOT NULL DEFAULT '{}',
    last_line TEXT NULL,
    shutdown INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX team_members_name ON team_members(root_id, name);
  CREATE TABLE team_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    root_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    to_session TEXT NOT NULL,
    sender TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER NULL
  );
  CREATE INDEX team_messages_waiting ON team_messages(to_session) WHERE delivered_at IS NULL;
  `,
  // 9: the skill whose `allowed-tools` let a request run unasked (skills/allowed-tools.ts), so
  // `sessions show` names it; NULL where the permission mode did.
  `ALTER TABLE permission_auto ADD COLUMN skill TEXT NULL;`,
  // 10: the skills active in a session (skills/allowed-tools.ts): loaded through the `skill`
  // tool or started by the user as `/<name>`. Their grants are a fact of the session, not of
  // its visible transcript, so a resume or a compaction keeps them.
  `
  CREATE TABLE session_skills (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, name)
  );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to SCHEMA_VERSION; refuses a database written by a newer version.
 * Another process may be migrating the same file at the same moment: the version is read
 * again inside an IMMEDIATE transaction (which holds the write lock), so each migration
 * runs exactly once and the loser simply finds the work done.
 */
export function migrate(db: Database.Database, file: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const check = (current: number) => {
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `${file} was written by a newer opencode-ink (schema ${current}, this version knows ${SCHEMA_VERSION}); upgrade opencode-ink to open it.`,
      );
    }
  };
  // A current file (every start but the first after an upgrade) costs one read.
  const found = version();
  check(found);
  if (found === SCHEMA_VERSION) return;
  db.transaction(() => {
    const current = version();
    check(current);
    for (let v = current; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
