import { randomUUID } from "node:crypto";
import { createClaimWake } from "./create-claim-wake.js";
import { createPollBackoff } from "./create-poll-backoff.js";
import type { ClaimedTask, JsonValue, TaskQueue } from "./task-queue.js";

/** Runs one task. Throw to fail it; an error with `retryable: true` is tried again later. */
export type QueueTaskHandler<TPayload> = (
  task: ClaimedTask<TPayload>,
  context: { readonly signal: AbortSignal; readonly workerId: string },
) => Promise<JsonValue>;

export interface WorkerLoopLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface WorkerLoopOptions {
  /** Tasks this worker runs at once (the queue applies its global and per-installation limits too). */
  readonly concurrency: number;
  /** Abort to stop: no new claims; running tasks are awaited. */
  readonly signal: AbortSignal;
  /**
   * How often an idle worker asks the queue for work. Tasks enqueued in this process, and tasks
   * its own finished ones let start, are claimed at once (on Redis, other processes' too: the
   * queue's `onEnqueue` hears them); the poll is for what no notification covers.
   * After each further empty claim the wait doubles, up to `maxPollMs`; a claim or a wake resets it.
   */
  readonly pollMs?: number;
  /**
   * The longest wait between an idle worker's claims (default 4 × `pollMs`: with the default 250 ms,
   * a task another process enqueues waits at most a second for an idle worker).
   */
  readonly maxPollMs?: number;
  readonly heartbeatMs?: number;
  readonly workerId?: string;
  readonly logger?: WorkerLoopLogger;
}

export interface WorkerLoopSummary {
  readonly claimed: number;
  readonly completed: number;
  readonly failed: number;
}

/** Why a task's signal was aborted; handlers can read `signal.reason`. */
export class TaskAbortedError extends Error {
  override readonly name = "TaskAbortedError";
  constructor(
    readonly code: "TASK_CANCELLED" | "LEASE_LOST",
    /** For a cancellation: why, as the queue recorded it (e.g. the newer push that superseded it). */
    readonly reason?: string,
  ) {
    super(
      code === "TASK_CANCELLED"
        ? `the task was cancelled${reason === undefined ? "" : `: ${reason}`}`
        : "the task's lease was lost",
    );
  }
}

export function isRetryableError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "retryable" in error && error.retryable === true;
}

export async function runWorkerLoop<TPayload>(
  queue: TaskQueue<TPayload>,
  handler: QueueTaskHandler<TPayload>,
  options: WorkerLoopOptions,
): Promise<WorkerLoopSummary> {
  const pollMs = options.pollMs ?? 250;
  const backoff = createPollBackoff(pollMs, options.maxPollMs ?? pollMs * 4);
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const workerId = options.workerId ?? `worker-${randomUUID()}`;
  const logger = options.logger;
  const running = new Set<Promise<void>>();
  const controllers = new Map<string, AbortController>();
  const counts = { claimed: 0, completed: 0, failed: 0 };
  const stopCancelListener = queue.onCancel((taskId, reason) => {
    controllers.get(taskId)?.abort(new TaskAbortedError("TASK_CANCELLED", reason));
  });
  const claimWake = createClaimWake();
  function wake(): void {
    backoff.reset();
    claimWake.wake();
  }
  const stopEnqueueListener = queue.onEnqueue(wake);

  async function runTask(task: ClaimedTask<TPayload>): Promise<void> {
    const controller = new AbortController();
    controllers.set(task.taskId, controller);
    const timer = setInterval(() => {
      queue.heartbeat(task).then(
        async (isHeld) => {
          if (isHeld || controller.signal.aborted) return;
          // Cancelled from another process (its listeners are not ours): say so, with the reason.
          // A record that cannot be read leaves it what the failed renewal says: a lost lease.
          const record = await queue.get(task.taskId).catch(() => null);
          controller.abort(
            record?.state === "cancelled"
              ? new TaskAbortedError("TASK_CANCELLED", record.lastError ?? undefined)
              : new TaskAbortedError("LEASE_LOST"),
          );
        },
        (error: unknown) => logger?.warn({ err: error, taskId: task.taskId }, "lease renewal failed"),
      );
    }, heartbeatMs);
    try {
      const outcome = await handler(task, { signal: controller.signal, workerId });
      if (await queue.complete(task, outcome)) counts.completed += 1;
    } catch (error) {
      counts.failed += 1;
      const message = error instanceof Error ? error.message : String(error);
      const retryable = isRetryableError(error) && !controller.signal.aborted;
      try {
        await queue.fail(task, message, { retryable });
      } catch (recordError) {
        logger?.error({ err: recordError, taskId: task.taskId }, "could not record a failed task");
      }
    } finally {
      clearInterval(timer);
      controllers.delete(task.taskId);
      // The key's waiting task, or one held back by a concurrency limit, may start now.
      wake();
    }
  }

  const stopRequested = whenAborted(options.signal);
  try {
    while (!options.signal.aborted) {
      if (running.size >= options.concurrency) {
        await Promise.race([...running, stopRequested]);
        continue;
      }
      let task: ClaimedTask<TPayload> | null;
      claimWake.clear();
      try {
        task = await queue.claim(workerId);
      } catch (error) {
        logger?.error({ err: error }, "claiming a task failed");
        task = null;
      }
      if (task === null) {
        await claimWake.wait(backoff.next(), options.signal);
        continue;
      }
      backoff.reset();
      counts.claimed += 1;
      const execution: Promise<void> = runTask(task).finally(() => running.delete(execution));
      running.add(execution);
    }
    await Promise.allSettled([...running]);
  } finally {
    stopCancelListener();
    stopEnqueueListener();
  }
  return counts;
}

function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
