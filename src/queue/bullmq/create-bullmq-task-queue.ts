import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { QueueError } from "../queue-error.js";
import { DEFAULT_RETRY_BACKOFF } from "../retry-delay.js";
import {
  CANCELLED_ON_REQUEST,
  TASK_STATES,
  type CancelListener,
  type EnqueueListener,
  type ClaimedTask,
  type EnqueueReason,
  type QueueStats,
  type TaskState,
} from "../task-queue.js";
import { createBullmqTickets } from "./create-bullmq-tickets.js";
import { asReply, defineGateCommands } from "./define-gate-commands.js";
import { pairsToFields, toClaimedTask, toTaskRecord, type GateTaskFields } from "./gate-task-record.js";
import type { BullmqTaskQueue, BullmqTaskQueueOptions } from "./bullmq-task-queue.js";
import { createWakeChannel } from "./create-wake-channel.js";
import { validateTaskInput } from "../validate-task-input.js";

export type { BullmqTaskQueue, BullmqTaskQueueOptions } from "./bullmq-task-queue.js";

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_JOBS_PER_CLAIM = 50;

/**
 * The Redis engine: BullMQ holds the jobs (delivery to workers, locks, delays, dead-worker
 * pickup); a small gate of Lua scripts (see gate-scripts.ts) holds each task's record and
 * decides, atomically, whether a job BullMQ hands out may run now. BullMQ alone cannot
 * serialise per key or limit per installation in its open-source edition; the gate does, and
 * is the source of truth: a BullMQ job is only a ticket that says "look at this task".
 */
export function createBullmqTaskQueue<TPayload>(
  options: BullmqTaskQueueOptions<TPayload>,
): BullmqTaskQueue<TPayload> {
  const prefix = options.prefix ?? "agentforge";
  const queueName = options.queueName ?? "tasks";
  const globalConcurrency = options.globalConcurrency ?? 4;
  const perInstallationConcurrency = options.perInstallationConcurrency ?? globalConcurrency;
  const leaseMs = options.leaseMs ?? 60_000;
  const defaultMaxAttempts = options.maxAttempts ?? 3;
  const backoff = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  const retentionMs = options.retentionMs ?? THIRTY_DAYS_MS;
  const busyRetryMs = options.busyRetryMs ?? 1000;
  const parkRecheckMs = Math.min(leaseMs, options.parkRecheckMs ?? 5000);
  const reportError = options.onError ?? (() => undefined);
  const gatePrefix = `${prefix}:${queueName}:gate:`;
  const redis = new Redis(options.connection, { maxRetriesPerRequest: null });
  redis.on("error", (error) => reportError(error, "redis connection"));
  const commands = defineGateCommands(redis, gatePrefix, `${prefix}:${queueName}:`);
  const tickets = createBullmqTickets({
    connection: redis,
    prefix,
    queueName,
    leaseMs,
    stalledCheckMs: options.stalledCheckMs ?? Math.max(500, Math.floor(leaseMs / 2)),
    blockMs: Math.max(0, options.claimBlockMs ?? 0),
    reportError,
  });
  const listeners = new Set<CancelListener>();
  const enqueueListeners = new Set<EnqueueListener>();
  const wakes = createWakeChannel({ redis, channel: `${prefix}:${queueName}:wake`, reportError });
  /** This process's listeners, for its own enqueues and for other processes' announcements. */
  function tellEnqueued(taskId: string): void {
    for (const listener of enqueueListeners) listener(taskId);
  }
  /** Makes a delayed ticket due now and tells the other processes' idle workers; "" does nothing. */
  async function promoteAndAnnounce(taskId: string): Promise<void> {
    if (taskId === "") return;
    await tickets.promote(taskId);
    wakes.announce(taskId);
  }
  let isClosed = false;

  async function guard<T>(action: string, work: () => Promise<T>): Promise<T> {
    if (isClosed) throw new QueueError("QUEUE_CLOSED", `cannot ${action}: the queue is closed`);
    try {
      return await work();
    } catch (error) {
      if (error instanceof QueueError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new QueueError("STORE_FAILED", `could not ${action}: ${reason}`, { cause: error });
    }
  }

  async function readFields(taskId: string): Promise<GateTaskFields | null> {
    const fields = await redis.hgetall(`${gatePrefix}t:${taskId}`);
    return Object.keys(fields).length === 0 ? null : fields;
  }

  async function failUndecodable(taskId: string, token: string, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    const reply = asReply(
      await commands.fail(
        taskId,
        token,
        `payload could not be decoded: ${reason}`,
        "0",
        Date.now(),
        retentionMs,
        1,
        1,
      ),
    );
    await tickets.finish(taskId, token);
    await promoteAndAnnounce(reply[2] ?? "");
  }

  async function claimOnce(workerId: string): Promise<ClaimedTask<TPayload> | null | "again"> {
    if (Number(await commands.hasCapacity(globalConcurrency)) !== 1) return null;
    const token = randomUUID();
    const taskId = await tickets.next(token);
    if (taskId === null) return null;
    const at = Date.now();
    const reply = asReply(
      await commands.admit(
        taskId,
        token,
        workerId,
        at,
        leaseMs,
        perInstallationConcurrency,
        globalConcurrency,
        retentionMs,
      ),
    );
    const verdict = reply[0];
    if (verdict === "discard") {
      await tickets.finish(taskId, token);
      await promoteAndAnnounce(reply[1] ?? "");
      return "again";
    }
    if (verdict === "delay") return tickets.postpone(taskId, token, Number(reply[1])).then(() => "again");
    // A parked task is promoted when its key frees; the recheck covers a missed promotion.
    if (verdict === "park") return tickets.postpone(taskId, token, at + parkRecheckMs).then(() => "again");
    if (verdict === "busy") return tickets.postpone(taskId, token, at + busyRetryMs).then(() => "again");
    if (verdict !== "run") throw new QueueError("STORE_FAILED", `the queue gate answered ${String(verdict)}`);
    const fields = pairsToFields(reply.slice(1));
    try {
      return toClaimedTask(taskId, token, fields, options.decodePayload);
    } catch (error) {
      // A record that no longer decodes can never run: fail it rather than block its key.
      await failUndecodable(taskId, token, error);
      return "again";
    }
  }

  return {
    enqueue(task) {
      return guard("enqueue a task", async () => {
        validateTaskInput(task);
        const taskId = randomUUID();
        // The ticket exists before the record, delayed: if this process dies in between, the
        // ticket finds no record and is dropped; if it dies after, the ticket still runs.
        await tickets.add(taskId, leaseMs);
        const [reason, other, keyState, cancelledRunning] = asReply(
          await commands.enqueue(
            taskId,
            task.deliveryId,
            task.key,
            task.installationId,
            JSON.stringify(task.payload),
            task.maxAttempts ?? defaultMaxAttempts,
            Date.now(),
            retentionMs,
            task.kind ?? "",
            task.supersedeRunning?.kinds.join("\n") ?? "",
            task.supersedeRunning?.reason ?? "",
          ),
        );
        if (reason === "duplicate-delivery") {
          await tickets.remove(taskId);
          return { accepted: false, reason, taskId: other === undefined || other === "" ? null : other };
        }
        if (keyState === "free") await promoteAndAnnounce(taskId);
        else tickets.forget(taskId);
        const cancelled: { cancelledRunningTaskId?: string } = {};
        if (cancelledRunning !== undefined && cancelledRunning !== "") {
          cancelled.cancelledRunningTaskId = cancelledRunning;
          await tickets.remove(cancelledRunning);
          for (const listener of listeners) listener(cancelledRunning, task.supersedeRunning?.reason ?? "");
        }
        const replaced = reason === "replaced-waiting" && other !== undefined && other !== "";
        if (replaced) await tickets.remove(other);
        // Told after the tickets are settled, so a woken claim sees them as they stay. A task
        // parked behind its key's running one is not claimable yet; the wake costs one claim.
        tellEnqueued(taskId);
        return replaced
          ? { accepted: true, reason, taskId, replacedTaskId: other, ...cancelled }
          : { accepted: true, reason: "enqueued" satisfies EnqueueReason, taskId, ...cancelled };
      });
    },
    async claim(workerId) {
      await guard("start the stalled-task check", () => tickets.start());
      for (let round = 0; round < MAX_JOBS_PER_CLAIM; round += 1) {
        const claimed = await guard("claim a task", () => claimOnce(workerId));
        if (claimed !== "again") return claimed;
      }
      return null;
    },
    complete(lease, outcome) {
      return guard("complete a task", async () => {
        const [held, promote] = asReply(
          await commands.complete(
            lease.taskId,
            lease.leaseToken,
            JSON.stringify(outcome),
            Date.now(),
            retentionMs,
          ),
        );
        if (held !== "1") {
          tickets.forget(lease.taskId);
          return false;
        }
        await tickets.finish(lease.taskId, lease.leaseToken);
        await promoteAndAnnounce(promote ?? "");
        return true;
      });
    },
    fail(lease, error, { retryable }) {
      return guard("record a failed task", async () => {
        const [state, retryAt, promote] = asReply(
          await commands.fail(
            lease.taskId,
            lease.leaseToken,
            error,
            retryable ? "1" : "0",
            Date.now(),
            retentionMs,
            backoff.baseMs,
            backoff.maxMs,
          ),
        );
        if (state === "lease-lost") {
          tickets.forget(lease.taskId);
          return { state };
        }
        if (state === "queued") {
          await tickets.postpone(lease.taskId, lease.leaseToken, Number(retryAt));
          return { state, retryAt: Number(retryAt) };
        }
        if (state !== "failed" && state !== "superseded") {
          throw new QueueError("STORE_FAILED", `the queue gate answered ${String(state)}`);
        }
        await tickets.finish(lease.taskId, lease.leaseToken);
        await promoteAndAnnounce(promote ?? "");
        return { state };
      });
    },
    heartbeat(lease) {
      return guard("renew a lease", async () => {
        const held = Number(await commands.heartbeat(lease.taskId, lease.leaseToken, Date.now() + leaseMs));
        // Both must hold: the gate's record and BullMQ's lock, or another worker may take over.
        return held === 1 && (await tickets.extend(lease.taskId, lease.leaseToken));
      });
    },
    async cancel(key) {
      const reply = await guard("cancel tasks", async () =>
        asReply(await commands.cancel(key, Date.now(), retentionMs, CANCELLED_ON_REQUEST)),
      );
      const cancelledTaskIds = reply.slice(1);
      for (const taskId of cancelledTaskIds) {
        await tickets.remove(taskId);
        for (const listener of listeners) listener(taskId, CANCELLED_ON_REQUEST);
      }
      return { cancelledTaskIds, wasRunning: reply[0] === "1" };
    },
    onCancel(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onEnqueue(listener) {
      enqueueListeners.add(listener);
      wakes.listen(tellEnqueued);
      return () => enqueueListeners.delete(listener);
    },
    hasDelivery(deliveryId) {
      return guard(
        "look up a delivery",
        async () => (await redis.exists(`${gatePrefix}d:${deliveryId}`)) === 1,
      );
    },
    rememberDelivery(deliveryId) {
      return guard(
        "record a delivery",
        async () => Number(await commands.rememberDelivery(deliveryId, retentionMs)) === 1,
      );
    },
    get(taskId) {
      return guard("read a task", async () => {
        const fields = await readFields(taskId);
        return fields === null ? null : toTaskRecord(taskId, fields, options.decodePayload);
      });
    },
    stats() {
      return guard("count tasks", async () => {
        const stored = await redis.hgetall(`${gatePrefix}stats`);
        const counts = Object.fromEntries(TASK_STATES.map((state) => [state, 0])) as Record<
          TaskState,
          number
        >;
        for (const state of TASK_STATES) counts[state] = Math.max(0, Number(stored[state] ?? 0));
        return counts satisfies QueueStats;
      });
    },
    saveHandOver(lease, value) {
      return guard("store a hand-over", async () => {
        const reply = await commands.saveHandOver(lease.taskId, lease.leaseToken, JSON.stringify(value));
        return Number(reply) === 1;
      });
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      listeners.clear();
      enqueueListeners.clear();
      await wakes.close();
      await tickets.close();
      await redis.quit();
    },
  };
}
