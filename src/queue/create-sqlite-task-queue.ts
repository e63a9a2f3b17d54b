import { validateTaskInput } from "./validate-task-input.js";
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { QueueError } from "./queue-error.js";
import { computeRetryDelayMs, DEFAULT_RETRY_BACKOFF, type RetryBackoff } from "./retry-delay.js";
import { prepareQueueDatabase } from "./sqlite-queue-schema.js";
import { prepareQueueStatements } from "./sqlite-queue-statements.js";
import { createEmptyClaimMemo } from "./create-empty-claim-memo.js";
import {
  TASK_STATES,
  CANCELLED_ON_REQUEST,
  type CancelListener,
  type EnqueueListener,
  type CancelResult,
  type ClaimedTask,
  type EnqueueResult,
  type FailResult,
  type JsonValue,
  type QueueStats,
  type TaskInput,
  type TaskLease,
  type TaskQueue,
  type TaskRecord,
  type TaskState,
} from "./task-queue.js";

export interface SqliteTaskQueueOptions<TPayload> {
  readonly filePath: string;
  /** Payloads come back from disk: check their shape rather than trusting a cast. */
  readonly decodePayload: (value: unknown) => TPayload;
  /** Tasks running at once across every worker of this queue (default 4). */
  readonly globalConcurrency?: number;
  /**
   * Tasks of one installation running at once. Unset: no limit of its own (only the global one),
   * so tasks of one installation on different issues run side by side.
   */
  readonly perInstallationConcurrency?: number;
  /** A running task whose lease is not renewed within this time goes back to the queue. */
  readonly leaseMs?: number;
  readonly maxAttempts?: number;
  readonly retryBackoff?: RetryBackoff;
  /** Finished tasks and seen delivery ids older than this are pruned when the queue opens. */
  readonly retentionMs?: number;
  readonly now?: () => number;
}

interface TaskRow {
  readonly id: string;
  readonly task_key: string;
  readonly delivery_id: string;
  readonly installation_id: number;
  readonly state: TaskState;
  readonly payload: string;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly available_at: number;
  readonly lease_expires_at: number | null;
  readonly enqueued_at: number;
  readonly finished_at: number | null;
  readonly outcome: string | null;
  readonly last_error: string | null;
}

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;

/** The embedded engine: one SQLite file in WAL mode; safe to share between processes. */
export function createSqliteTaskQueue<TPayload>(
  options: SqliteTaskQueueOptions<TPayload>,
): TaskQueue<TPayload> {
  const now = options.now ?? Date.now;
  const globalConcurrency = options.globalConcurrency ?? 4;
  const perInstallationConcurrency = options.perInstallationConcurrency ?? globalConcurrency;
  const leaseMs = options.leaseMs ?? 60_000;
  const defaultMaxAttempts = options.maxAttempts ?? 3;
  const backoff = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  const listeners = new Set<CancelListener>();
  const enqueueListeners = new Set<EnqueueListener>();

  let db: Database.Database;
  try {
    db = new Database(options.filePath);
    prepareQueueDatabase(db);
    const cutoff = now() - (options.retentionMs ?? THIRTY_DAYS_MS);
    db.prepare("DELETE FROM deliveries WHERE seen_at < ?").run(cutoff);
    db.prepare("DELETE FROM tasks WHERE finished_at IS NOT NULL AND finished_at < ?").run(cutoff);
  } catch (error) {
    throw asQueueError(error, `could not open the queue database ${options.filePath}`);
  }
  let isClosed = false;

  const statements = prepareQueueStatements(db);
  const emptyClaim = createEmptyClaimMemo(db);

  function guard<T>(action: string, work: () => T): Promise<T> {
    if (isClosed)
      return Promise.reject(new QueueError("QUEUE_CLOSED", `cannot ${action}: the queue is closed`));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(asQueueError(error, `could not ${action}`));
    }
  }

  function recoverExpiredLeases(at: number): void {
    for (const row of statements.expiredLeases.all(at) as TaskRow[]) {
      // After the last attempt comes one report attempt (see `isReportAttempt`), then no more.
      if (row.attempts > row.max_attempts) {
        const message = `the worker stopped renewing its lease on the report attempt after ${row.max_attempts} attempts`;
        statements.finish.run("failed", at, at, message, row.id);
      } else if (statements.waitingForKey.get(row.task_key) !== undefined) {
        // A newer request for the same key is waiting: it carries the latest intent.
        statements.finish.run("superseded", at, at, "lease expired; a newer request was waiting", row.id);
      } else {
        statements.requeue.run(at, at, "lease expired; the worker stopped renewing it", row.id);
      }
    }
  }

  const claimTransaction = db.transaction((workerId: string): ClaimedTask<TPayload> | null => {
    const at = now();
    recoverExpiredLeases(at);
    for (;;) {
      const running = (statements.countRunning.get() as { count: number }).count;
      const row =
        running >= globalConcurrency
          ? undefined
          : (statements.nextRunnable.get({ now: at, limit: perInstallationConcurrency }) as TaskRow | undefined);
      if (row === undefined) {
        emptyClaim.recordEmpty(at);
        return null;
      }
      let payload: TPayload;
      try {
        payload = options.decodePayload(JSON.parse(row.payload));
      } catch (error) {
        // A record that no longer decodes can never run: fail it rather than block its key.
        const reason = error instanceof Error ? error.message : String(error);
        statements.finish.run("failed", at, at, `payload could not be decoded: ${reason}`, row.id);
        continue;
      }
      const leaseToken = randomUUID();
      const leaseExpiresAt = at + leaseMs;
      statements.markRunning.run(workerId, leaseToken, leaseExpiresAt, at, row.id);
      return {
        taskId: row.id,
        leaseToken,
        key: row.task_key,
        deliveryId: row.delivery_id,
        installationId: row.installation_id,
        attempt: row.attempts + 1,
        maxAttempts: row.max_attempts,
        payload,
        enqueuedAt: row.enqueued_at,
        leaseExpiresAt,
        // The embedded store's tasks never leave this machine: the task record on disk is enough.
        handOver: null,
      };
    }
  });

  const enqueueTransaction = db.transaction((task: TaskInput<TPayload>, payload: string): EnqueueResult => {
    const at = now();
    if (statements.insertDelivery.run(task.deliveryId, at).changes === 0) {
      const existing = statements.taskByDelivery.get(task.deliveryId) as { id: string } | undefined;
      return { accepted: false, reason: "duplicate-delivery", taskId: existing?.id ?? null };
    }
    const waiting = statements.waitingForKey.get(task.key) as { id: string } | undefined;
    if (waiting !== undefined) statements.supersede.run(at, at, waiting.id);
    const cancelledRunning = cancelSupersededRunning(task, at);
    const id = randomUUID();
    statements.insertTask.run({
      id,
      deliveryId: task.deliveryId,
      key: task.key,
      installationId: task.installationId,
      payload,
      maxAttempts: task.maxAttempts ?? defaultMaxAttempts,
      now: at,
      kind: task.kind ?? null,
    });
    const cancelled = cancelledRunning === null ? {} : { cancelledRunningTaskId: cancelledRunning };
    return waiting === undefined
      ? { accepted: true, reason: "enqueued", taskId: id, ...cancelled }
      : { accepted: true, reason: "replaced-waiting", taskId: id, replacedTaskId: waiting.id, ...cancelled };
  });

  /** Inside the enqueue transaction: ends the key's running task if the newer one supersedes it. */
  function cancelSupersededRunning(task: TaskInput<TPayload>, at: number): string | null {
    const supersede = task.supersedeRunning;
    if (supersede === undefined) return null;
    const running = statements.runningForKey.get(task.key) as { id: string; kind: string | null } | undefined;
    if (running === undefined || running.kind === null || !supersede.kinds.includes(running.kind)) return null;
    statements.finish.run("cancelled", at, at, supersede.reason, running.id);
    return running.id;
  }

  const failTransaction = db.transaction(
    (lease: TaskLease, error: string, retryable: boolean): FailResult => {
      const at = now();
      const row = statements.heldTask.get(lease.taskId, lease.leaseToken) as TaskRow | undefined;
      if (row === undefined) return { state: "lease-lost" };
      if (!retryable || row.attempts >= row.max_attempts) {
        statements.finish.run("failed", at, at, error, row.id);
        return { state: "failed" };
      }
      if (statements.waitingForKey.get(row.task_key) !== undefined) {
        statements.finish.run("superseded", at, at, error, row.id);
        return { state: "superseded" };
      }
      const retryAt = at + computeRetryDelayMs(row.attempts, backoff);
      statements.requeue.run(retryAt, at, error, row.id);
      return { state: "queued", retryAt };
    },
  );

  const cancelTransaction = db.transaction((key: string): CancelResult => {
    const at = now();
    const rows = statements.activeForKey.all(key) as { id: string; state: TaskState }[];
    for (const row of rows) statements.finish.run("cancelled", at, at, CANCELLED_ON_REQUEST, row.id);
    return {
      cancelledTaskIds: rows.map((row) => row.id),
      wasRunning: rows.some((row) => row.state === "running"),
    };
  });

  return {
    async enqueue(task) {
      const result = await guard("enqueue a task", () => {
        validateTaskInput(task);
        emptyClaim.forget();
        return enqueueTransaction.immediate(task, JSON.stringify(task.payload));
      });
      const cancelled = result.cancelledRunningTaskId;
      if (cancelled !== undefined && task.supersedeRunning !== undefined)
        for (const listener of listeners) listener(cancelled, task.supersedeRunning.reason);
      if (result.accepted && result.taskId !== null)
        for (const listener of enqueueListeners) listener(result.taskId);
      return result;
    },
    claim(workerId) {
      return guard("claim a task", () => {
        // An idle worker polls; most of its claims would find what the last one found.
        if (emptyClaim.isStillEmpty(now())) return null;
        return claimTransaction.immediate(workerId);
      });
    },
    complete(lease, outcome: JsonValue) {
      return guard("complete a task", () => {
        emptyClaim.forget();
        const at = now();
        return (
          statements.complete.run(JSON.stringify(outcome), at, at, lease.taskId, lease.leaseToken).changes ===
          1
        );
      });
    },
    fail(lease, error, { retryable }) {
      return guard("record a failed task", () => {
        emptyClaim.forget();
        return failTransaction.immediate(lease, error, retryable);
      });
    },
    heartbeat(lease) {
      return guard("renew a lease", () => {
        const at = now();
        return statements.heartbeat.run(at + leaseMs, at, lease.taskId, lease.leaseToken).changes === 1;
      });
    },
    async cancel(key) {
      const result = await guard("cancel tasks", () => {
        emptyClaim.forget();
        return cancelTransaction.immediate(key);
      });
      for (const taskId of result.cancelledTaskIds)
        for (const listener of listeners) listener(taskId, CANCELLED_ON_REQUEST);
      return result;
    },
    onCancel(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onEnqueue(listener) {
      enqueueListeners.add(listener);
      return () => enqueueListeners.delete(listener);
    },
    hasDelivery(deliveryId) {
      return guard("look up a delivery", () => statements.hasDelivery.get(deliveryId) !== undefined);
    },
    rememberDelivery(deliveryId) {
      return guard("record a delivery", () => statements.insertDelivery.run(deliveryId, now()).changes === 1);
    },
    get(taskId) {
      return guard("read a task", () => {
        const row = statements.byId.get(taskId) as TaskRow | undefined;
        return row === undefined ? null : toRecord(row, options.decodePayload);
      });
    },
    stats() {
      return guard("count tasks", () => {
        const counts = Object.fromEntries(TASK_STATES.map((state) => [state, 0])) as Record<
          TaskState,
          number
        >;
        for (const row of statements.stats.all() as { state: TaskState; count: number }[])
          counts[row.state] = row.count;
        return counts satisfies QueueStats;
      });
    },
    close() {
      if (!isClosed) {
        isClosed = true;
        listeners.clear();
        enqueueListeners.clear();
        db.close();
      }
      return Promise.resolve();
    },
  };
}

function toRecord<TPayload>(row: TaskRow, decodePayload: (value: unknown) => TPayload): TaskRecord<TPayload> {
  return {
    taskId: row.id,
    key: row.task_key,
    deliveryId: row.delivery_id,
    installationId: row.installation_id,
    state: row.state,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    payload: decodePayload(JSON.parse(row.payload)),
    enqueuedAt: row.enqueued_at,
    availableAt: row.available_at,
    finishedAt: row.finished_at,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as JsonValue),
    lastError: row.last_error,
  };
}

function asQueueError(error: unknown, message: string): QueueError {
  if (error instanceof QueueError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new QueueError("STORE_FAILED", `${message}: ${reason}`, { cause: error });
}
