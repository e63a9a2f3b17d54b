import type { RetryBackoff } from "../retry-delay.js";
import type { JsonValue, TaskLease, TaskQueue } from "../task-queue.js";

export interface BullmqTaskQueueOptions<TPayload> {
  /** A Redis URL, e.g. `redis://127.0.0.1:6379/0` (`REDIS_URL`). */
  readonly connection: string;
  /** Prefix of every key this queue writes; one per deployment (and per test run). */
  readonly prefix?: string;
  readonly queueName?: string;
  /** Payloads come back from Redis: check their shape rather than trusting a cast. */
  readonly decodePayload: (value: unknown) => TPayload;
  /** Tasks running at once across every worker of this queue (default 4). */
  readonly globalConcurrency?: number;
  /**
   * Tasks of one installation running at once. Unset: no limit of its own (only the global one),
   * so tasks of one installation on different issues run side by side.
   */
  readonly perInstallationConcurrency?: number;
  /** BullMQ's lock duration: a task whose lease is not renewed within it goes to another worker. */
  readonly leaseMs?: number;
  readonly maxAttempts?: number;
  readonly retryBackoff?: RetryBackoff;
  /** How long finished tasks and seen delivery ids are kept. */
  readonly retentionMs?: number;
  /** When a task's installation or the whole queue is at its limit, it is looked at again after this. */
  readonly busyRetryMs?: number;
  /**
   * A task whose key is busy waits for a promotion when the key frees; it is also looked at
   * again after this long, which bounds the delay if that promotion is missed in a race.
   */
  readonly parkRecheckMs?: number;
  /**
   * How long a claim that finds no due task waits for one, in milliseconds (0, the default: it
   * answers at once). The wait is BullMQ's blocking read of its marker key, which any process's
   * enqueue or promotion of a task ends, so an idle worker hears of other processes' tasks
   * without polling. The gate still decides every task the wait returns, so the concurrency
   * limits hold as without it. Off by default because a waiting claim cannot be cut short: while
   * a delayed task exists (a retry, a parked or busy ticket) BullMQ waits until it is due, up to
   * 10 s, whatever this says, and a worker loop asked to stop notices only when the claim ends.
   */
  readonly claimBlockMs?: number;
  /** How often this process looks for tasks of dead workers (BullMQ's stalled-job check). */
  readonly stalledCheckMs?: number;
  /** Problems that do not fail the call (BullMQ bookkeeping the gate will repair later). */
  readonly onError?: (error: unknown, context: string) => void;
}

/** The Redis engine carries a hand-over value with each running task. */
export interface BullmqTaskQueue<TPayload> extends TaskQueue<TPayload> {
  saveHandOver(lease: TaskLease, value: JsonValue): Promise<boolean>;
}
