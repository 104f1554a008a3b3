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
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database up to SCHEMA_VERSION; refuses a database written by a newer version. */
export function migrate(db: Database.Database, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `${file} was written by a newer opencode-ink (schema ${current}, this version knows ${SCHEMA_VERSION}); upgrade opencode-ink to open it.`,
    );
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
