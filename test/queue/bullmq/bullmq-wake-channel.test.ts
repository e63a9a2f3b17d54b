import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import type { BullmqTaskQueue } from "../../../src/queue/bullmq/create-bullmq-task-queue.js";
import { runWorkerLoop } from "../../../src/queue/run-worker-loop.js";
import type { ClaimedTask, TaskQueue } from "../../../src/queue/task-queue.js";
import { task, type TestPayload } from "../queue-test-helpers.js";
import { waitUntil } from "../../support/wait-until.js";
import {
  bookkeepingErrors,
  openBullmqTestQueue,
  REDIS_URL,
  removeKeys,
  uniquePrefix,
} from "./redis-test-helpers.js";

/** Longer than the test's own timeout: a worker that only polls fails the test. */
const POLL_MS = 60_000;

/** Waits until some connection subscribes to `channel` (a message sent before is lost). */
function waitForSubscriber(observer: Redis, channel: string, what: string): Promise<void> {
  return waitUntil(async () => {
    const [, subscribers] = (await observer.pubsub("NUMSUB", channel)) as [string, number];
    return Number(subscribers) >= 1;
  }, what);
}

interface IdleWorker {
  /** Resolves with the label of each task the loop runs, in order. */
  readonly ran: string[];
  whenRan(count: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A worker loop on its own queue (its own Redis connections, as another process has), started
 * and left idle: its first claim has found nothing and it subscribes before this returns.
 */
async function startIdleWorker(
  queue: BullmqTaskQueue<TestPayload>,
  observer: Redis,
  channel: string,
): Promise<IdleWorker> {
  let emptyClaims = 0;
  const counted: TaskQueue<TestPayload> = {
    ...queue,
    async claim(workerId: string): Promise<ClaimedTask<TestPayload> | null> {
      const claimed = await queue.claim(workerId);
      if (claimed === null) emptyClaims += 1;
      return claimed;
    },
  };
  const ran: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const controller = new AbortController();
  const done = runWorkerLoop(
    counted,
    async (claimed) => {
      ran.push(claimed.payload.label);
      for (const waiter of waiters) if (ran.length >= waiter.count) waiter.resolve();
      return null;
    },
    { concurrency: 2, signal: controller.signal, pollMs: POLL_MS, maxPollMs: POLL_MS },
  );
  await waitUntil(() => emptyClaims >= 1, "the idle worker's first claim");
  await waitForSubscriber(observer, channel, "the idle worker to subscribe to the wake channel");
  return {
    ran,
    whenRan: (count) =>
      ran.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    async stop() {
      controller.abort();
      await done;
    },
  };
}

describe("the Redis engine's wake channel", () => {
  let prefix: string;
  let channel: string;
  let observer: Redis;
  const opened: BullmqTaskQueue<TestPayload>[] = [];
  const open = (): BullmqTaskQueue<TestPayload> => {
    const queue = openBullmqTestQueue(prefix);
    opened.push(queue);
    return queue;
  };
  beforeEach(() => {
    prefix = uniquePrefix();
    channel = `${prefix}:tasks:wake`;
    observer = new Redis(REDIS_URL);
    bookkeepingErrors.splice(0);
  });
  afterEach(async () => {
    for (const queue of opened.splice(0)) await queue.close();
    await observer.quit();
    await removeKeys(prefix);
  });

  it("an idle worker runs a task another connection enqueues without waiting for its poll", async () => {
    const worker = await startIdleWorker(open(), observer, channel);
    try {
      await open().enqueue(task("o/r#1", "from elsewhere"));
      await worker.whenRan(1);
      expect(worker.ran).toEqual(["from elsewhere"]);
    } finally {
      await worker.stop();
    }
    expect(bookkeepingErrors).toEqual([]);
  });

  it("a task another connection's completion lets start (its key's waiting one) wakes an idle worker", async () => {
    const other = open();
    await other.enqueue(task("o/r#7", "first"));
    const first = await other.claim("elsewhere");
    expect(first?.payload.label).toBe("first");
    await other.enqueue(task("o/r#7", "second"));
    const worker = await startIdleWorker(open(), observer, channel);
    try {
      // The second waits behind the first: the idle worker's claims cannot take it yet.
      expect(worker.ran).toEqual([]);
      await other.complete(first!, null);
      await worker.whenRan(1);
      expect(worker.ran).toEqual(["second"]);
    } finally {
      await worker.stop();
    }
  });

  it("a process hears its own enqueues once, from its own listeners, not again from the channel", async () => {
    const queue = open();
    const heard: string[] = [];
    queue.onEnqueue((taskId) => heard.push(taskId));
    await waitForSubscriber(observer, channel, "the queue to subscribe to the wake channel");
    const own = await queue.enqueue(task("o/r#1", "own"));
    // Another connection's announcement comes after ours on the channel: once it is heard, ours
    // would have been too.
    const elsewhere = await open().enqueue(task("o/r#2", "elsewhere"));
    await waitUntil(() => heard.includes(elsewhere.taskId ?? ""), "the other connection's announcement");
    expect(heard).toEqual([own.taskId, elsewhere.taskId]);
  });
});
