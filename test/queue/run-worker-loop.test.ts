import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { runWorkerLoop, TaskAbortedError } from "../../src/queue/run-worker-loop.js";
import type { TaskQueue } from "../../src/queue/task-queue.js";
import { makeTempDir, openTestQueue, removeDir, task, type TestPayload } from "./queue-test-helpers.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

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
    const controller = new AbortController();
    const loop = runWorkerLoop(
      queue,
      async (claimed) => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 30));
        active -= 1;
        return { label: claimed.payload.label };
      },
      { concurrency: 2, signal: controller.signal, pollMs: 5 },
    );
    await waitUntil(async () => (await queue.stats()).completed === 6);
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
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false); // still waiting for the running task
    release.resolve();
    expect(await loop).toEqual({ claimed: 1, completed: 1, failed: 0 });
    expect(await queue.stats()).toMatchObject({ completed: 1, queued: 1, running: 0 });
  });

  it("aborts a running task at once when its key is cancelled", async () => {
    const { taskId } = await queue.enqueue(task("o/r#1", "long"));
    const controller = new AbortController();
    let abortReason: unknown;
    const loop = runWorkerLoop(
      queue,
      (_claimed, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            abortReason = signal.reason;
            reject(new Error("stopped"));
          });
        }),
      { concurrency: 1, signal: controller.signal, pollMs: 5 },
    );
    await waitUntil(async () => (await queue.stats()).running === 1);
    await queue.cancel("o/r#1");
    await waitUntil(() => abortReason !== undefined);
    controller.abort();
    await loop;
    expect(abortReason).toBeInstanceOf(TaskAbortedError);
    expect((await queue.get(taskId!))?.state).toBe("cancelled");
  });

  it("retries a task that throws a retryable error", async () => {
    const retrying = openTestQueue(dir, { retryBackoff: { baseMs: 1, maxMs: 1 } });
    await retrying.enqueue(task("o/r#1", "flaky"));
    let calls = 0;
    const controller = new AbortController();
    const loop = runWorkerLoop(
      retrying,
      async () => {
        calls += 1;
        if (calls === 1) throw Object.assign(new Error("rate limited"), { retryable: true });
        return "ok";
      },
      { concurrency: 1, signal: controller.signal, pollMs: 5 },
    );
    await waitUntil(async () => (await retrying.stats()).completed === 1);
    controller.abort();
    expect(await loop).toEqual({ claimed: 2, completed: 1, failed: 1 });
    await retrying.close();
  });
});
