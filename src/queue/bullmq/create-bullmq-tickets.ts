import { Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";

/**
 * The BullMQ side of the Redis engine. A ticket is a BullMQ job whose id is the task id; BullMQ
 * delivers it to one worker at a time under a lock, delays it, and gives it back when the
 * worker holding it dies (its stalled-job check). What the task is and whether it may run is
 * the gate's business, so the calls that only tidy BullMQ up report their failures instead of
 * throwing: a ticket left behind comes back through the stalled check and the gate drops it.
 */
export interface BullmqTickets {
  add(taskId: string, delayMs: number): Promise<void>;
  /** Starts the stalled-job check (dead-worker pickup); called by every process that claims. */
  start(): Promise<void>;
  /** Locks the next due ticket with the token; null when none is due (after `blockMs`, if set). */
  next(token: string): Promise<string | null>;
  postpone(taskId: string, token: string, untilMs: number): Promise<void>;
  finish(taskId: string, token: string): Promise<void>;
  /** Makes a delayed ticket due now; an empty id does nothing. */
  promote(taskId: string): Promise<void>;
  remove(taskId: string): Promise<void>;
  extend(taskId: string, token: string): Promise<boolean>;
  /** Drops this process's handles on a ticket (one it lost, or one it will not promote). */
  forget(taskId: string): void;
  close(): Promise<void>;
}

export interface BullmqTicketsOptions {
  readonly connection: Redis;
  readonly prefix: string;
  readonly queueName: string;
  readonly leaseMs: number;
  readonly stalledCheckMs: number;
  /** 0: `next` answers at once; otherwise it waits up to this long for a ticket to come due. */
  readonly blockMs: number;
  readonly reportError: (error: unknown, context: string) => void;
}

export function createBullmqTickets(options: BullmqTicketsOptions): BullmqTickets {
  const { connection, prefix, queueName, leaseMs, reportError } = options;
  const queue = new Queue(queueName, { connection, prefix });
  queue.on("error", (error) => reportError(error, "bullmq queue"));
  const held = new Map<string, Job>();
  /** Tickets this process just added, so promoting one right after costs one call. */
  const added = new Map<string, Job>();
  let worker: Worker | undefined;

  /** Created on the first claim, so a process that only enqueues runs no stalled-job check. */
  async function getWorker(): Promise<Worker> {
    if (worker !== undefined) return worker;
    const created = new Worker(queueName, null, {
      connection,
      prefix,
      autorun: false,
      lockDuration: leaseMs,
      stalledInterval: options.stalledCheckMs,
      // Attempts are counted by the gate, which fails a task after its last one; BullMQ must
      // keep handing a stalled ticket back rather than fail it on its own.
      maxStalledCount: 1_000_000,
      skipLockRenewal: true,
      // BullMQ's blocking wait, in seconds; it only applies when `next` asks to block.
      ...(options.blockMs > 0 ? { drainDelay: options.blockMs / 1000 } : {}),
    });
    created.on("error", (error) => reportError(error, "bullmq worker"));
    worker = created;
    await created.startStalledCheckTimer();
    return created;
  }

  async function findJob(taskId: string): Promise<Job | undefined> {
    return held.get(taskId) ?? (await Job.fromId(queue, taskId));
  }

  async function tidy(context: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      reportError(error, context);
    }
  }

  return {
    async add(taskId, delayMs) {
      const job = await queue.add(
        "task",
        {},
        { jobId: taskId, delay: delayMs, removeOnComplete: true, removeOnFail: true },
      );
      added.set(taskId, job);
    },
    async start() {
      await getWorker();
    },
    async next(token) {
      const job = await (await getWorker()).getNextJob(token, { block: options.blockMs > 0 });
      if (job === undefined || job.id === undefined) return null;
      held.set(job.id, job);
      return job.id;
    },
    async postpone(taskId, token, untilMs) {
      const job = await findJob(taskId);
      held.delete(taskId);
      if (job !== undefined) await tidy(`postpone ticket ${taskId}`, () => job.moveToDelayed(untilMs, token));
    },
    async finish(taskId, token) {
      const job = await findJob(taskId);
      held.delete(taskId);
      if (job !== undefined)
        await tidy(`finish ticket ${taskId}`, () => job.moveToCompleted(null, token, false));
    },
    async promote(taskId) {
      if (taskId === "") return;
      const fresh = added.get(taskId);
      added.delete(taskId);
      if (fresh !== undefined) {
        await tidy(`promote ticket ${taskId}`, () => fresh.promote());
        return;
      }
      await tidy(`promote ticket ${taskId}`, async () => {
        const job = await Job.fromId(queue, taskId);
        if (job !== undefined && (await job.isDelayed())) await job.promote();
      });
    },
    async remove(taskId) {
      held.delete(taskId);
      added.delete(taskId);
      // Returns 0 for a ticket a worker holds: that one is dropped by the gate when it runs.
      await tidy(`remove ticket ${taskId}`, () => queue.remove(taskId));
    },
    async extend(taskId, token) {
      const job = await findJob(taskId);
      return job !== undefined && (await job.extendLock(token, leaseMs)) === 1;
    },
    forget(taskId) {
      held.delete(taskId);
      added.delete(taskId);
    },
    async close() {
      held.clear();
      added.clear();
      if (worker !== undefined) await worker.close();
      await queue.close();
    },
  };
}
