import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import type { BullmqTaskQueue } from "../../../src/queue/bullmq/create-bullmq-task-queue.js";
import { task, type TestPayload } from "../queue-test-helpers.js";
import { waitUntil } from "../../support/wait-until.js";
import {
  bookkeepingErrors,
  openBullmqTestQueue,
  REDIS_URL,
  removeKeys,
  uniquePrefix,
  type BullmqTestOptions,
} from "./redis-test-helpers.js";

/** Longer than the test's own timeout: a claim that is not woken fails the test. */
const BLOCK_MS = 60_000;

/** Redis connections now blocked in BZPOPMIN, BullMQ's wait on its marker key. */
async function countBlockedReads(redis: Redis): Promise<number> {
  const clients = (await redis.client("LIST")) as string;
  return clients.split("\n").filter((line) => line.includes(" cmd=bzpopmin")).length;
}

describe("createBullmqTaskQueue with claimBlockMs", () => {
  let prefix: string;
  const opened: BullmqTaskQueue<TestPayload>[] = [];
  const open = (options: BullmqTestOptions = {}): BullmqTaskQueue<TestPayload> => {
    const queue = openBullmqTestQueue(prefix, options);
    opened.push(queue);
    return queue;
  };
  beforeEach(() => {
    prefix = uniquePrefix();
    bookkeepingErrors.splice(0);
  });
  afterEach(async () => {
    for (const queue of opened.splice(0)) await queue.close();
    await removeKeys(prefix);
  });

  it("wakes a waiting claim when another connection enqueues, and the claim after takes the task", async () => {
    const worker = open({ claimBlockMs: BLOCK_MS });
    const producer = open();
    const observer = new Redis(REDIS_URL);
    try {
      // The first empty claim answers at once (BullMQ blocks only once it has seen the queue empty).
      expect(await worker.claim("w1")).toBeNull();
      const blockedBefore = await countBlockedReads(observer);
      let isAnswered = false;
      const waiting = worker.claim("w1").finally(() => (isAnswered = true));
      await waitUntil(
        async () => (await countBlockedReads(observer)) > blockedBefore,
        "the claim to block on BullMQ's marker",
      );
      expect(isAnswered).toBe(false);
      const { taskId } = await producer.enqueue(task("o/r#1", "elsewhere"));
      // Enqueueing adds the ticket delayed, then makes it due: either may end the wait.
      const claimed = (await waiting) ?? (await worker.claim("w1"));
      expect(claimed?.taskId).toBe(taskId);
      await worker.complete(claimed!, null);
      expect(bookkeepingErrors).toEqual([]);
    } finally {
      await observer.quit();
    }
  });

  it("answers at once at the global limit, and takes the task once a slot frees", async () => {
    const worker = open({ claimBlockMs: BLOCK_MS, globalConcurrency: 1, busyRetryMs: BLOCK_MS });
    const other = open({ globalConcurrency: 1 });
    await other.enqueue(task("o/r#1", "first"));
    const first = await other.claim("w2");
    expect(first).not.toBeNull();
    // At the limit the claim answers at once, without waiting.
    await other.enqueue(task("o/r#2", "second"));
    expect(await worker.claim("w1")).toBeNull();
    await other.complete(first!, null);
    expect((await worker.claim("w1"))?.payload.label).toBe("second");
  });
});
