import type { BullmqTaskQueueOptions } from "./bullmq/bullmq-task-queue.js";
import { openEmbeddedTaskQueue, type EmbeddedTaskQueueOptions } from "./open-embedded-task-queue.js";
import { QueueError } from "./queue-error.js";
import { parseQueuePrefix, readQueuePrefix } from "./read-queue-prefix.js";
import type { TaskQueue } from "./task-queue.js";

/** The options both engines understand; engine-specific ones are ignored by the other engine. */
export type OpenTaskQueueOptions<TPayload> = Omit<EmbeddedTaskQueueOptions<TPayload>, "now"> &
  Pick<
    BullmqTaskQueueOptions<TPayload>,
    "prefix" | "queueName" | "busyRetryMs" | "stalledCheckMs" | "onError"
  >;

export type TaskQueueEngine = "bullmq" | "embedded";

/** Which engine `openTaskQueue` picks: Redis when `REDIS_URL` is set, the embedded store otherwise. */
export function chooseTaskQueueEngine(env: NodeJS.ProcessEnv = process.env): TaskQueueEngine {
  return (env.REDIS_URL ?? "").trim() === "" ? "embedded" : "bullmq";
}

/**
 * Opens the engine `chooseTaskQueueEngine` picks. On Redis every key starts with `prefix`, or
 * else `AGENTFORGE_QUEUE_PREFIX`, or else "agentforge"; an unsafe prefix is refused here.
 */
export async function openTaskQueue<TPayload>(
  options: OpenTaskQueueOptions<TPayload>,
): Promise<TaskQueue<TPayload>> {
  const env = options.env ?? process.env;
  const { prefix, queueName, busyRetryMs, stalledCheckMs, onError, filePath, env: _env, ...common } = options;
  if (chooseTaskQueueEngine(env) === "bullmq") {
    const checked = prefix === undefined ? readQueuePrefix(env) : parseQueuePrefix(prefix, "prefix");
    if (!checked.success) throw new QueueError("INVALID_OPTIONS", checked.error);
    // BullMQ and ioredis load only when Redis is used: the embedded queue's process never needs them.
    const { createBullmqTaskQueue } = await import("./bullmq/create-bullmq-task-queue.js");
    return createBullmqTaskQueue({
      ...common,
      connection: (env.REDIS_URL ?? "").trim(),
      prefix: checked.value,
      ...(queueName === undefined ? {} : { queueName }),
      ...(busyRetryMs === undefined ? {} : { busyRetryMs }),
      ...(stalledCheckMs === undefined ? {} : { stalledCheckMs }),
      ...(onError === undefined ? {} : { onError }),
    });
  }
  return openEmbeddedTaskQueue({ ...common, env, ...(filePath === undefined ? {} : { filePath }) });
}
