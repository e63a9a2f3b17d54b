import type { Database } from "better-sqlite3";
import { QueueError } from "./queue-error.js";

export const SQLITE_QUEUE_SCHEMA_VERSION = 1;

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

/**
 * WAL with synchronous=FULL: a commit returns only after the log is on disk, so a task whose
 * enqueue returned survives a crash of the process or of the machine.
 */
export function prepareQueueDatabase(db: Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  const checkVersion = (): boolean => {
    const version = db.pragma("user_version", { simple: true });
    if (version === SQLITE_QUEUE_SCHEMA_VERSION) return true;
    if (version !== 0) {
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
    db.exec(SCHEMA_V1);
    db.pragma(`user_version = ${SQLITE_QUEUE_SCHEMA_VERSION}`);
  }).immediate();
}
