import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import {
  createBullmqTaskQueue,
  type BullmqTaskQueue,
  type BullmqTaskQueueOptions,
} from "../../../src/queue/bullmq/create-bullmq-task-queue.js";
import { decodeTestPayload, type TestPayload } from "../queue-test-helpers.js";

export const REDIS_URL = process.env.AGENTFORGE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A key prefix no other test run (or machine user) shares. */
export function uniquePrefix(): string {
  return `agentforge-test-${randomUUID()}`;
}

/** Tidy-up problems the engine reported instead of throwing; tests print them when they fail. */
export const bookkeepingErrors: { context: string; error: unknown }[] = [];

export type BullmqTestOptions = Partial<
  Omit<BullmqTaskQueueOptions<TestPayload>, "decodePayload" | "connection">
>;

export function openBullmqTestQueue(
  prefix: string,
  options: BullmqTestOptions = {},
): BullmqTaskQueue<TestPayload> {
  return createBullmqTaskQueue({
    connection: REDIS_URL,
    prefix,
    decodePayload: decodeTestPayload,
    onError: (error, context) => bookkeepingErrors.push({ context, error }),
    ...options,
  });
}

/** Deletes every key of a test run. */
export async function removeKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL);
  let removed = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) removed += await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    await redis.quit();
  }
  return removed;
}

/** Lease expiry is measured by Redis's own clock: these tests wait for it in real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
