import { afterEach, beforeEach, describe, expect, it, jest } from "@jest/globals";
import { createPollBackoff } from "../../src/queue/create-poll-backoff.js";
import { runWorkerLoop } from "../../src/queue/run-worker-loop.js";
import type { ClaimedTask, EnqueueListener, TaskQueue } from "../../src/queue/task-queue.js";

describe("createPollBackoff", () => {
  it("doubles from pollMs up to its ceiling and starts again after a reset", () => {
    const backoff = createPollBackoff(10, 80);
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([
      10, 20, 40, 80, 80,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(10);
  });

  it("never waits less than pollMs when the ceiling is set below it", () => {
    const backoff = createPollBackoff(50, 10);
    expect([backoff.next(), backoff.next()]).toEqual([50, 50]);
  });
});

/** A queue that records when it was asked for work and hands out the tasks a test gives it. */
function createRecordingQueue(): {
  queue: TaskQueue<string>;
  claimTimes: number[];
  announce: () => void;
  offer: (task: ClaimedTask<string>) => void;
} {
  const claimTimes: number[] = [];
  const offered: ClaimedTask<string>[] = [];
  const enqueueListeners = new Set<EnqueueListener>();
  const queue = {
    claim: () => {
      claimTimes.push(Date.now());
      return Promise.resolve(offered.shift() ?? null);
    },
    complete: () => Promise.resolve(true),
    heartbeat: () => Promise.resolve(true),
    onCancel: () => () => undefined,
    onEnqueue: (listener: EnqueueListener) => {
      enqueueListeners.add(listener);
      return () => enqueueListeners.delete(listener);
    },
  } as unknown as TaskQueue<string>;
  return {
    queue,
    claimTimes,
    announce: () => {
      for (const listener of enqueueListeners) listener("task");
    },
    offer: (task) => offered.push(task),
  };
}

const claimedTask: ClaimedTask<string> = {
  taskId: "t-1",
  leaseToken: "lease",
  key: "o/r#1",
  deliveryId: "d-1",
  installationId: 1,
  attempt: 1,
  maxAttempts: 3,
  payload: "work",
  enqueuedAt: 0,
  leaseExpiresAt: 0,
  handOver: null,
};

describe("runWorkerLoop's idle polling", () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** Claim times relative to the first claim. */
  const offsets = (times: number[]): number[] => times.map((time) => time - times[0]!);

  it("waits longer after each empty claim, up to maxPollMs", async () => {
    const recording = createRecordingQueue();
    const controller = new AbortController();
    const loop = runWorkerLoop(recording.queue, () => Promise.resolve("done"), {
      concurrency: 1,
      signal: controller.signal,
      pollMs: 100,
      maxPollMs: 400,
    });
    await jest.advanceTimersByTimeAsync(1_500);
    controller.abort();
    await loop;
    expect(offsets(recording.claimTimes)).toEqual([0, 100, 300, 700, 1_100, 1_500]);
  });

  it("polls at pollMs again after a wake", async () => {
    const recording = createRecordingQueue();
    const controller = new AbortController();
    const loop = runWorkerLoop(recording.queue, () => Promise.resolve("done"), {
      concurrency: 1,
      signal: controller.signal,
      pollMs: 100,
      maxPollMs: 800,
    });
    await jest.advanceTimersByTimeAsync(700);
    expect(offsets(recording.claimTimes)).toEqual([0, 100, 300, 700]);
    // Waiting 800 ms now; a task enqueued in this process cuts it short and resets the backoff.
    await jest.advanceTimersByTimeAsync(50);
    recording.announce();
    await jest.advanceTimersByTimeAsync(300);
    controller.abort();
    await loop;
    expect(offsets(recording.claimTimes)).toEqual([0, 100, 300, 700, 750, 850, 1_050]);
  });

  it("polls at pollMs again after a claim", async () => {
    const recording = createRecordingQueue();
    const controller = new AbortController();
    const loop = runWorkerLoop(recording.queue, () => Promise.resolve("done"), {
      concurrency: 1,
      signal: controller.signal,
      pollMs: 100,
      maxPollMs: 800,
      // A task that ends wakes the loop itself; the heartbeat would otherwise run on fake time too.
      heartbeatMs: 60_000,
    });
    await jest.advanceTimersByTimeAsync(700);
    recording.offer(claimedTask);
    // The claim at 1500 takes the task; its end wakes the loop, then the waits start from 100.
    await jest.advanceTimersByTimeAsync(1_100);
    controller.abort();
    const summary = await loop;
    expect(summary).toEqual({ claimed: 1, completed: 1, failed: 0 });
    expect(offsets(recording.claimTimes)).toEqual([0, 100, 300, 700, 1_500, 1_500, 1_600, 1_800]);
  });
});
