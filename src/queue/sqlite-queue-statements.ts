import type { Database } from "better-sqlite3";

/** Every SQL statement of the embedded queue, prepared once per connection. */
export function prepareQueueStatements(db: Database) {
  return {
    insertDelivery: db.prepare("INSERT OR IGNORE INTO deliveries (delivery_id, seen_at) VALUES (?, ?)"),
    hasDelivery: db.prepare("SELECT 1 FROM deliveries WHERE delivery_id = ?"),
    taskByDelivery: db.prepare("SELECT id FROM tasks WHERE delivery_id = ?"),
    waitingForKey: db.prepare("SELECT id FROM tasks WHERE task_key = ? AND state = 'queued'"),
    supersede: db.prepare(
      "UPDATE tasks SET state = 'superseded', finished_at = ?, updated_at = ? WHERE id = ?",
    ),
    insertTask: db.prepare(`INSERT INTO tasks
      (id, delivery_id, task_key, installation_id, state, payload, max_attempts, available_at, enqueued_at, updated_at, kind)
      VALUES (@id, @deliveryId, @key, @installationId, 'queued', @payload, @maxAttempts, @now, @now, @now, @kind)`),
    runningForKey: db.prepare("SELECT id, kind FROM tasks WHERE task_key = ? AND state = 'running'"),
    expiredLeases: db.prepare("SELECT * FROM tasks WHERE state = 'running' AND lease_expires_at < ?"),
    requeue: db.prepare(`UPDATE tasks SET state = 'queued', available_at = ?, updated_at = ?, last_error = ?,
      lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL WHERE id = ?`),
    finish: db.prepare(`UPDATE tasks SET state = ?, finished_at = ?, updated_at = ?, last_error = ?,
      lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL WHERE id = ?`),
    countRunning: db.prepare("SELECT COUNT(*) AS count FROM tasks WHERE state = 'running'"),
    nextRunnable: db.prepare(`SELECT t.* FROM tasks t
      WHERE t.state = 'queued' AND t.available_at <= @now
        AND NOT EXISTS (SELECT 1 FROM tasks r WHERE r.task_key = t.task_key AND r.state = 'running')
        AND (SELECT COUNT(*) FROM tasks r WHERE r.installation_id = t.installation_id AND r.state = 'running') < @limit
      ORDER BY t.seq LIMIT 1`),
    markRunning: db.prepare(`UPDATE tasks SET state = 'running', attempts = attempts + 1, lease_owner = ?,
      lease_token = ?, lease_expires_at = ?, updated_at = ? WHERE id = ?`),
    heldTask: db.prepare("SELECT * FROM tasks WHERE id = ? AND state = 'running' AND lease_token = ?"),
    complete: db.prepare(`UPDATE tasks SET state = 'completed', outcome = ?, finished_at = ?, updated_at = ?,
      lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
      WHERE id = ? AND state = 'running' AND lease_token = ?`),
    heartbeat: db.prepare(`UPDATE tasks SET lease_expires_at = ?, updated_at = ?
      WHERE id = ? AND state = 'running' AND lease_token = ?`),
    activeForKey: db.prepare(
      "SELECT id, state FROM tasks WHERE task_key = ? AND state IN ('queued', 'running')",
    ),
    byId: db.prepare("SELECT * FROM tasks WHERE id = ?"),
    stats: db.prepare("SELECT state, COUNT(*) AS count FROM tasks GROUP BY state"),
  };
}
