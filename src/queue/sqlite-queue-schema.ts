import type { Database } from "better-sqlite3";
import { QueueError } from "./queue-error.js";

export const SQLITE_QUEUE_SCHEMA_VERSION = 2;

/**
 * The partial unique indexes are the queue's invariants written where no code path can skip
 * them: per key at most one running task and at most one waiting task.
 */
const SCHEMA_V1 = `
CREATE TABLE tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  delivery_id TEXT NOT NULL UNIQUE,
  task_key TEXT NOT NULL,
  installation_id INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued','running','completed','failed','cancelled','superseded')),
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  available_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_token TEXT,
  lease_expires_at INTEGER,
  enqueued_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT,
  last_error TEXT
);
CREATE INDEX tasks_by_state ON tasks(state, seq);
CREATE INDEX tasks_by_key ON tasks(task_key, state);
CREATE INDEX tasks_by_installation ON tasks(installation_id, state);
CREATE UNIQUE INDEX tasks_one_running_per_key ON tasks(task_key) WHERE state = 'running';
CREATE UNIQUE INDEX tasks_one_waiting_per_key ON tasks(task_key) WHERE state = 'queued';
CREATE TABLE deliveries (
  delivery_id TEXT PRIMARY KEY,
  seen_at INTEGER NOT NULL
);
CREATE INDEX deliveries_by_age ON deliveries(seen_at);
`;

/** Version 2: the task's kind, which a newer task's `supersedeRunning` matches on. */
const MIGRATE_V1_TO_V2 = "ALTER TABLE tasks ADD COLUMN kind TEXT;";

/**
 * WAL with synchronous=FULL: a commit returns only after the log is on disk, so a task whose
 * enqueue returned survives a crash of the process or of the machine.
 */
export function prepareQueueDatabase(db: Database): void {
  db.pragma("busy_timeout = 5000");
  switchToWal(db);
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  const checkVersion = (): boolean => {
    const version = db.pragma("user_version", { simple: true });
    if (version === SQLITE_QUEUE_SCHEMA_VERSION) return true;
    if (version !== 0 && version !== 1) {
      throw new QueueError(
        "STORE_FAILED",
        `queue database has schema version ${String(version)}; this build knows ${SQLITE_QUEUE_SCHEMA_VERSION}`,
      );
    }
    return false;
  };
  if (checkVersion()) return;
  // Two processes may open a new database at once: the write lock of an immediate transaction
  // lets one create the schema; the other then sees the version inside its own and does nothing.
  db.transaction(() => {
    if (checkVersion()) return;
    // A database of version 1 (tasks kept across an upgrade) gains the column; a new one is made.
    if (db.pragma("user_version", { simple: true }) === 0) db.exec(SCHEMA_V1);
    db.exec(MIGRATE_V1_TO_V2);
    db.pragma(`user_version = ${SQLITE_QUEUE_SCHEMA_VERSION}`);
  }).immediate();
}

/** How long two processes opening a new database at once may keep each other from switching it to WAL. */
const WAL_SWITCH_ATTEMPTS = 100;
const WAL_SWITCH_PAUSE_MS = 20;

/**
 * Switching a new database to WAL needs it alone for a moment. When another process opens it at
 * the same time, SQLite may answer SQLITE_BUSY at once instead of waiting (two connections each
 * holding a shared lock and wanting more would deadlock), so the switch is tried again after a
 * short pause; once one process has switched, the others find WAL already set.
 */
function switchToWal(db: Database): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const busy =
        typeof error === "object" &&
        error !== null &&
        "code" in error &&
        String(error.code).startsWith("SQLITE_BUSY");
      if (!busy || attempt >= WAL_SWITCH_ATTEMPTS) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_SWITCH_PAUSE_MS);
    }
  }
}
