import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { runWorkerLoop, TaskAbortedError } from "../../src/queue/run-worker-loop.js";
import type { TaskQueue } from "../../src/queue/task-queue.js";
import { deferred } from "../support/deferred.js";
import { makeTempDir, openTestQueue, removeDir, task, type TestPayload } from "./queue-test-helpers.js";

describe("runWorkerLoop", () => {
  let dir: string;
  let queue: TaskQueue<TestPayload>;
  beforeEach(async () => {
    dir = await makeTempDir();
    queue = openTestQueue(dir, { globalConcurrency: 10, perInstallationConcurrency: 10 });
  });
  afterEach(async () => {
    await queue.close();
    await removeDir(dir);
  });

  it("runs tasks up to its concurrency and records their outcomes", async () => {
    for (let index = 0; index < 6; index += 1) await queue.enqueue(task(`o/r#${index}`, `t${index}`));
    let active = 0;
    let peak = 0;
    let handled = 0;
    const allHandled = deferred();
    const controller = new AbortController();
    const loop = runWorkerLoop(
      queue,
      async (claimed) => {
        active += 1;
        peak = Math.max(peak, active);
        // Each task yields a macrotask, so the loop has the chance to claim a third one at once.
        await new Promise((resolve) => setImmediate(resolve));
        active -= 1;
        handled += 1;
        if (handled === 6) allHandled.resolve();
        return { label: claimed.payload.label };
      },
      { concurrency: 2, signal: controller.signal, pollMs: 5 },
    );
    await allHandled.promise;
    // Stopping waits for the running tasks, so their outcomes are recorded when the loop ends.
    controller.abort();
    expect(await loop).toEqual({ claimed: 6, completed: 6, failed: 0 });
    expect(peak).toBe(2);
  });

  it("stops claiming on abort and waits for the running task to finish", async () => {
    await queue.enqueue(task("o/r#1", "running"));
    await queue.enqueue(task("o/r#2", "left"));
    const started = deferred();
    const release = deferred();
    const controller = new AbortController();
    const loop = runWorkerLoop(
      queue,
      async () => {
        started.resolve();
        await release.promise;
        return "finished";
      },
      { concurrency: 1, signal: controller.signal, pollMs: 5 },
    );
    await started.promise;
    controller.abort();
    let settled = false;
    void loop.then(() => (settled = true));
    // The stop is handled in promise callbacks only: a macrotask later the loop would have ended.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false); // still waiting for the running task
    release.resolve();
    expect(await loop).toEqual({ claimed: 1, completed: 1, failed: 0 });
    expect(await queue.stats()).toMatchObject({ completed: 1, queued: 1, running: 0 });
  });

  it("aborts a running task at once when its key is cancelled", async () => {
    const { taskId } = await queue.enqueue(task("o/r#1", "long"));
    const controller = new AbortController();
    const started = deferred();
    const aborted = deferred<unknown>();
    const loop = runWorkerLoop(
      queue,
      (_claimed, { signal }) =>
        new Promise((_resolve, reject) => {
          started.resolve();
          signal.addEventListener("abort", () => {
            aborted.resolve(signal.reason);
            reject(new Error("stopped"));
          });
        }),
      { concurrency: 1, signal: controller.signal, pollMs: 5 },
    );
    await started.promise;
    await queue.cancel("o/r#1");
    const abortReason = await aborted.promise;
    controller.abort();
    await loop;
    expect(abortReason).toBeInstanceOf(TaskAbortedError);
    expect((await queue.get(taskId!))?.state).toBe("cancelled");
  });

  it("learns at its next lease renewal of a cancel made by another process, with the reason", async () => {
    await queue.enqueue(task("o/r#1", "old review", { kind: "review" }));
    const controller = new AbortController();
    const started = deferred();
    const aborted = deferred<unknown>();
    const loop = runWorkerLoop(
      queue,
      (_claimed, { signal }) =>
        new Promise((_resolve, reject) => {
          started.resolve();
          signal.addEventListener("abort", () => {
            aborted.resolve(signal.reason);
            reject(new Error("stopped"));
          });
        }),
      { concurrency: 1, signal: controller.signal, pollMs: 5, heartbeatMs: 20 },
    );
    await started.promise;
    // Another connection (the intake process) supersedes it: this process's listeners hear nothing.
    const intake = openTestQueue(dir);
    const reason = "a newer push abc1234 arrived; reviewing that instead";
    await intake.enqueue(
      task("o/r#1", "new review", { kind: "review", supersedeRunning: { kinds: ["review"], reason } }),
    );
    const abortReason = await aborted.promise;
    controller.abort();
    await loop;
    await intake.close();
    expect(abortReason).toBeInstanceOf(TaskAbortedError);
    expect(abortReason).toMatchObject({ code: "TASK_CANCELLED", reason });
  });

  it("retries a task that throws a retryable error", async () => {
    const retrying = openTestQueue(dir, { retryBackoff: { baseMs: 1, maxMs: 1 } });
    await retrying.enqueue(task("o/r#1", "flaky"));
    let calls = 0;
    const retried = deferred();
    const controller = new AbortController();
    const loop = runWorkerLoop(
      retrying,
      async () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("rate limited"), { retryable: true });
        retried.resolve();
        return "ok";
      },
      { concurrency: 1, signal: controller.signal, pollMs: 5 },
    );
    await retried.promise;
    controller.abort();
    expect(await loop).toEqual({ claimed: 2, completed: 1, failed: 1 });
    await retrying.close();
  });

  describe("with a poll far longer than the test", () => {
    const HOUR_MS = 3_600_000;

    /** The queue as the loop sees it, and a way to learn of its next claim that finds nothing. */
    function watchEmptyClaims(watched: TaskQueue<TestPayload>) {
      let waiting: ReturnType<typeof deferred<void>> = deferred();
      const seen: TaskQueue<TestPayload> = {
        ...watched,
        claim: async (workerId) => {
          const claimed = await watched.claim(workerId);
          if (claimed === null) waiting.resolve();
          return claimed;
        },
      };
      const first = waiting.promise;
      return {
        queue: seen,
        idle: first,
        nextIdle: () => (waiting = deferred()).promise,
      };
    }

    it("claims a task enqueued in this process at once, not at its next poll", async () => {
      const watched = watchEmptyClaims(queue);
      const claimed = deferred<string>();
      const controller = new AbortController();
      const loop = runWorkerLoop(
        watched.queue,
        (task) => {
          claimed.resolve(task.payload.label);
          return Promise.resolve("done");
        },
        { concurrency: 1, signal: controller.signal, pollMs: HOUR_MS },
      );
      // The loop found the queue empty and waits out its hour-long poll when the task comes.
      await watched.idle;
      await queue.enqueue(task("o/r#1", "fresh"));
      expect(await claimed.promise).toBe("fresh");
      controller.abort();
      expect(await loop).toEqual({ claimed: 1, completed: 1, failed: 0 });
    });

    it("claims its key's waiting task as soon as its own task for that key ends", async () => {
      await queue.enqueue(task("o/r#1", "first"));
      const release = deferred();
      const second = deferred();
      const controller = new AbortController();
      const watched = watchEmptyClaims(queue);
      let secondIsWaiting: Promise<void> = Promise.resolve();
      const firstRuns = deferred();
      const loop = runWorkerLoop(
        watched.queue,
        async (claimed) => {
          if (claimed.payload.label === "first") {
            secondIsWaiting = watched.nextIdle();
            await queue.enqueue(task("o/r#1", "second"));
            firstRuns.resolve();
            await release.promise;
          } else second.resolve();
          return claimed.payload.label;
        },
        { concurrency: 2, signal: controller.signal, pollMs: HOUR_MS },
      );
      await firstRuns.promise;
      // With "first" running, "second" waits behind its key: the loop's claim found nothing.
      await secondIsWaiting;
      release.resolve();
      await second.promise;
      controller.abort();
      expect(await loop).toEqual({ claimed: 2, completed: 2, failed: 0 });
    });

    it("does not hear of tasks another process enqueues (those wait for the poll)", async () => {
      const watched = watchEmptyClaims(queue);
      const controller = new AbortController();
      let handled = 0;
      const loop = runWorkerLoop(
        watched.queue,
        () => {
          handled += 1;
          return Promise.resolve("done");
        },
        { concurrency: 1, signal: controller.signal, pollMs: HOUR_MS },
      );
      await watched.idle;
      const intake = openTestQueue(dir);
      const heard: string[] = [];
      const stopListening = intake.onEnqueue((taskId) => heard.push(taskId));
      const { taskId } = await intake.enqueue(task("o/r#1", "elsewhere"));
      stopListening();
      await intake.close();
      controller.abort();
      await loop;
      // The enqueuing connection heard of it; the loop's own did not, so it was never claimed.
      expect(heard).toEqual([taskId]);
      expect(handled).toBe(0);
      expect((await queue.get(taskId!))?.state).toBe("queued");
    });
  });
});
