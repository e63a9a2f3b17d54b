/**
 * The one queue interface. Two engines implement it: the embedded store (SQLite, one machine,
 * durable on disk) and a Redis engine for many workers. Both give the same guarantees:
 * deduplication by delivery id; per key at most one running and one waiting task (a newer
 * request replaces the waiting one); a global concurrency limit and, when the operator sets one,
 * a per-installation limit (none by default: tasks of one installation on different keys run
 * side by side); retries with backoff; and recovery of tasks whose worker stopped heartbeating.
 */

export type TaskState = "queued" | "running" | "completed" | "failed" | "cancelled" | "superseded";

export const TASK_STATES: readonly TaskState[] = [
  "queued",
  "running",
  "completed",
  "failed",
  "cancelled",
  "superseded",
];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface TaskInput<TPayload> {
  /** Unique per webhook delivery; a second task with the same id is refused. */
  readonly deliveryId: string;
  /** Serialisation key, e.g. `owner/repo#12`: one running and one waiting task per key. */
  readonly key: string;
  readonly installationId: number;
  readonly payload: TPayload;
  /** Overrides the queue's default number of attempts for this task. */
  readonly maxAttempts?: number;
  /** What sort of work this is (e.g. `review`); a later `supersedeRunning` matches on it. */
  readonly kind?: string;
  /**
   * Cancels the key's running task in the same atomic step as this one is enqueued, when that
   * task's `kind` is one of `kinds` (a task without a kind is never cancelled this way). The
   * cancelled task ends as `cancelled` with `reason` as its last error, and `onCancel` listeners
   * hear of it, so its worker aborts at once.
   */
  readonly supersedeRunning?: { readonly kinds: readonly string[]; readonly reason: string };
}

export type EnqueueReason = "enqueued" | "duplicate-delivery" | "replaced-waiting";

export interface EnqueueResult {
  readonly accepted: boolean;
  readonly reason: EnqueueReason;
  /** The new task; for a duplicate, the task first made from that delivery (null if none was). */
  readonly taskId: string | null;
  /** Set when reason is `replaced-waiting`: the waiting task now marked `superseded`. */
  readonly replacedTaskId?: string;
  /** Set when `supersedeRunning` matched: the running task now marked `cancelled`. */
  readonly cancelledRunningTaskId?: string;
}

/**
 * Proof that a worker holds a task. Calls that change a running task take it, so a worker whose
 * lease expired (and whose task was handed to another worker) cannot complete it twice.
 */
export interface TaskLease {
  readonly taskId: string;
  readonly leaseToken: string;
}

export interface ClaimedTask<TPayload> extends TaskLease {
  readonly key: string;
  readonly deliveryId: string;
  readonly installationId: number;
  /**
   * 1 on the first run; kept across lease-expiry recoveries. `maxAttempts + 1` marks a report
   * attempt: the worker of the last attempt stopped without a word (a crash, a kill, a lost
   * machine), so the task is handed out once more only for its requester to be told it was given
   * up (`isReportAttempt`). A report attempt whose worker stops too ends the task as failed.
   */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly payload: TPayload;
  readonly enqueuedAt: number;
  readonly leaseExpiresAt: number;
  /**
   * What the task's previous worker handed over with it (`saveHandOver`), for the one that takes
   * it over; null on a first attempt and on engines that carry none.
   */
  readonly handOver: JsonValue | null;
}

/** The one extra claim after a last attempt whose worker stopped: tell, do not work. */
export function isReportAttempt(task: { readonly attempt: number; readonly maxAttempts: number }): boolean {
  return task.attempt > task.maxAttempts;
}

export interface TaskRecord<TPayload> {
  readonly taskId: string;
  readonly key: string;
  readonly deliveryId: string;
  readonly installationId: number;
  readonly state: TaskState;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly payload: TPayload;
  readonly enqueuedAt: number;
  readonly availableAt: number;
  readonly finishedAt: number | null;
  readonly outcome: JsonValue | null;
  readonly lastError: string | null;
}

export type FailResult =
  | { readonly state: "queued"; readonly retryAt: number }
  | { readonly state: "failed" }
  /** The retry gave way to a newer request for the same key. */
  | { readonly state: "superseded" }
  /** The lease was no longer held (cancelled, or recovered by another worker). */
  | { readonly state: "lease-lost" };

export interface CancelResult {
  readonly cancelledTaskIds: readonly string[];
  readonly wasRunning: boolean;
}

export type CancelListener = (taskId: string, reason: string) => void;

/** Told, in the process that enqueued it, that a task was accepted and may be claimable. */
export type EnqueueListener = (taskId: string) => void;

/** The last error of a task `cancel(key)` ended. */
export const CANCELLED_ON_REQUEST = "cancelled on request";

export type QueueStats = Readonly<Record<TaskState, number>>;

export interface TaskQueue<TPayload> {
  enqueue(task: TaskInput<TPayload>): Promise<EnqueueResult>;
  /** Takes the oldest runnable task, or null when none may start now. */
  claim(workerId: string): Promise<ClaimedTask<TPayload> | null>;
  /** Returns false when the lease was lost (the task was cancelled or given to another worker). */
  complete(lease: TaskLease, outcome: JsonValue): Promise<boolean>;
  fail(lease: TaskLease, error: string, options: { readonly retryable: boolean }): Promise<FailResult>;
  /** Extends the lease. False means stop working on it: it was cancelled or the lease was lost. */
  heartbeat(lease: TaskLease): Promise<boolean>;
  /**
   * Stores a value with the running task for whichever worker takes it over (the Redis engine,
   * whose workers may be on other machines); false when the lease is lost. Absent on the embedded
   * store, whose tasks never leave their machine.
   */
  saveHandOver?(lease: TaskLease, value: JsonValue): Promise<boolean>;
  /** Cancels the waiting and the running task of a key. */
  cancel(key: string): Promise<CancelResult>;
  /**
   * In-process notification of cancellations, so a local worker can abort at once. `reason` is
   * what the task's record keeps as its last error ("cancelled on request", or the reason a
   * newer task gave in `supersedeRunning`).
   */
  onCancel(listener: CancelListener): () => void;
  /**
   * Notification of tasks that became claimable, so a worker claims at once instead of at its next
   * poll. The embedded engine tells of this process's enqueues only. The Redis engine also tells
   * of other processes' enqueues and of tasks their completions let start (a pub/sub hint: one that
   * is lost leaves the task to the poll).
   */
  onEnqueue(listener: EnqueueListener): () => void;
  /** True when this delivery id was already accepted (as a task or as an immediate answer). */
  hasDelivery(deliveryId: string): Promise<boolean>;
  /** Records a delivery answered without a task (help, stop); false when it was already seen. */
  rememberDelivery(deliveryId: string): Promise<boolean>;
  get(taskId: string): Promise<TaskRecord<TPayload> | null>;
  stats(): Promise<QueueStats>;
  close(): Promise<void>;
}
