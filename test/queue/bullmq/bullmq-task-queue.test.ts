import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import type { BullmqTaskQueue } from "../../../src/queue/bullmq/create-bullmq-task-queue.js";
import { task, type TestPayload } from "../queue-test-helpers.js";
import {
  bookkeepingErrors,
  openBullmqTestQueue,
  REDIS_URL,
  removeKeys,
  uniquePrefix,
  type BullmqTestOptions,
} from "./redis-test-helpers.js";
import { waitUntil } from "../../support/wait-until.js";

describe("createBullmqTaskQueue", () => {
  let prefix: string;
  const opened: BullmqTaskQueue<TestPayload>[] = [];
  const open = (options: BullmqTestOptions = {}): BullmqTaskQueue<TestPayload> => {
    const queue = openBullmqTestQueue(prefix, { stalledCheckMs: 200, ...options });
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

  it("holds the lease as BullMQ's job lock (the gate reads that key to tell live workers from dead)", async () => {
    const queue = open();
    await queue.enqueue(task("o/r#1", "a"));
    const claimed = await queue.claim("w");
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.get(`${prefix}:tasks:${claimed!.taskId}:lock`)).toBe(claimed!.leaseToken);
      await queue.complete(claimed!, null);
      expect(await redis.exists(`${prefix}:tasks:${claimed!.taskId}:lock`)).toBe(0);
    } finally {
      await redis.quit();
    }
    expect(bookkeepingErrors).toEqual([]);
  });

  it("hands a value over to the next attempt after the worker dies, with the claim; a lost lease cannot write one", async () => {
    const queue = open({ leaseMs: 500 });
    const { taskId } = await queue.enqueue(task("o/r#1", "resumable"));
    const first = await queue.claim("dies");
    expect(first?.handOver).toBeNull();
    expect(await queue.saveHandOver(first!, { runId: "run-1", step: 3 })).toBe(true);
    let second: Awaited<ReturnType<typeof queue.claim>> = null;
    await waitUntil(
      async () => (second = await queue.claim("resumes")) !== null,
      "the expired task to be claimed",
      {
        timeoutMs: 6000,
      },
    );
    expect(second).toMatchObject({ taskId, attempt: 2, handOver: { runId: "run-1", step: 3 } });
    expect(await queue.saveHandOver(first!, { runId: "stale" })).toBe(false);
    expect(await queue.saveHandOver(second!, { runId: "run-1", step: 4 })).toBe(true);
  });

  it("stops renewing a cancelled task's lease, and frees its key for the next request", async () => {
    const queue = open();
    await queue.enqueue(task("o/r#1", "running"));
    const running = await queue.claim("w");
    await queue.cancel("o/r#1");
    expect(await queue.heartbeat(running!)).toBe(false);
    expect(await queue.complete(running!, null)).toBe(false);
    await queue.enqueue(task("o/r#1", "next"));
    expect((await queue.claim("w"))?.payload.label).toBe("next");
  });

  it("lets a process that only enqueues run without a worker, and a separate one claim", async () => {
    const intake = open();
    const worker = open();
    const { taskId } = await intake.enqueue(task("o/r#1", "a"));
    expect((await worker.claim("w"))?.taskId).toBe(taskId);
    expect((await intake.stats()).running).toBe(1);
  });
});
