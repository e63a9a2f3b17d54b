import Database from "better-sqlite3";
import type { BudgetStore, DailyUsage } from "./budget-store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS budget_usage (
  installation_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (installation_id, day)
);
CREATE TABLE IF NOT EXISTS budget_running_tasks (
  installation_id INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (installation_id, task_id)
);
`;

/** Budgets in a SQLite file (WAL), shared safely by the processes of one machine. */
export function createSqliteBudgetStore(filePath: string): BudgetStore {
  const db = new Database(filePath);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.exec(SCHEMA);
  const statements = {
    add: db.prepare(`INSERT INTO budget_usage (installation_id, day, tokens, cost_usd) VALUES (?, ?, ?, ?)
      ON CONFLICT (installation_id, day) DO UPDATE SET tokens = tokens + excluded.tokens,
      cost_usd = cost_usd + excluded.cost_usd`),
    get: db.prepare("SELECT tokens, cost_usd FROM budget_usage WHERE installation_id = ? AND day = ?"),
    expire: db.prepare("DELETE FROM budget_running_tasks WHERE installation_id = ? AND expires_at <= ?"),
    count: db.prepare("SELECT COUNT(*) AS count FROM budget_running_tasks WHERE installation_id = ?"),
    start: db.prepare(
      "INSERT OR REPLACE INTO budget_running_tasks (installation_id, task_id, expires_at) VALUES (?, ?, ?)",
    ),
    isRunning: db.prepare("SELECT 1 FROM budget_running_tasks WHERE installation_id = ? AND task_id = ?"),
    finish: db.prepare("DELETE FROM budget_running_tasks WHERE installation_id = ? AND task_id = ?"),
  };
  const countRunning = (installationId: number, now: number): number => {
    statements.expire.run(installationId, now);
    return (statements.count.get(installationId) as { count: number }).count;
  };
  const tryStart = db.transaction(
    (installationId: number, taskId: string, limit: number, now: number, expiresAt: number): boolean => {
      const isRenewal = statements.isRunning.get(installationId, taskId) !== undefined;
      if (!isRenewal && countRunning(installationId, now) >= limit) return false;
      statements.start.run(installationId, taskId, expiresAt);
      return true;
    },
  );
  return {
    addUsage(installationId, day, usage) {
      statements.add.run(installationId, day, Math.round(usage.tokens), usage.costUsd);
      return Promise.resolve();
    },
    getUsage(installationId, day) {
      const row = statements.get.get(installationId, day) as { tokens: number; cost_usd: number } | undefined;
      return Promise.resolve<DailyUsage>({ tokens: row?.tokens ?? 0, costUsd: row?.cost_usd ?? 0 });
    },
    tryStartTask(installationId, taskId, limit, now, expiresAt) {
      return Promise.resolve(tryStart.immediate(installationId, taskId, limit, now, expiresAt));
    },
    finishTask(installationId, taskId) {
      statements.finish.run(installationId, taskId);
      return Promise.resolve();
    },
    countRunningTasks(installationId, now) {
      return Promise.resolve(countRunning(installationId, now));
    },
    close() {
      db.close();
      return Promise.resolve();
    },
  };
}
