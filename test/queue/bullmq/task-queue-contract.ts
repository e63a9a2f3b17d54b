import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { RetryBackoff } from "../../../src/queue/retry-delay.js";
import { isReportAttempt, type ClaimedTask, type TaskQueue } from "../../../src/queue/task-queue.js";
import { task, type TestPayload } from "../queue-test-helpers.js";
import { waitUntil } from "../../support/wait-until.js";
import { sleep } from "./redis-test-helpers.js";

export interface ContractQueueOptions {
  readonly globalConcurrency?: number;
  readonly perInstallationConcurrency?: number;
  readonly leaseMs?: number;
  readonly maxAttempts?: number;
  readonly retryBackoff?: RetryBackoff;
}

export interface ContractEngine {
  /** Prepares a fresh, empty store for one test. */
  setUp(): Promise<void>;
  /** Opens a connection to the current test's store; several may be open at once. */
  open(options?: ContractQueueOptions): TaskQueue<TestPayload>;
  tearDown(): Promise<void>;
}

async function claimWithin(
  queue: TaskQueue<TestPayload>,
  timeoutMs: number,
): Promise<ClaimedTask<TestPayload>> {
  let claimed: ClaimedTask<TestPayload> | null = null;
  await waitUntil(async () => (claimed = await queue.claim("recoverer")) !== null, "a task to claim", {
    timeoutMs,
  });
  return claimed!;
}

/**
 * The guarantees every engine gives, on real time (no injected clock: the Redis engine shares
 * the clock of Redis and BullMQ). Short leases and backoffs keep it fast.
 */
export function describeTaskQueueContract(engineName: string, engine: ContractEngine): void {
  describe(`task queue contract: ${engineName}`, () => {
    const opened: TaskQueue<TestPayload>[] = [];
    const open = (options: ContractQueueOptions = {}): TaskQueue<TestPayload> => {
      const queue = engine.open(options);
      opened.push(queue);
      return queue;
    };
    beforeEach(() => engine.setUp());
    afterEach(async () => {
      for (const queue of opened.splice(0)) await queue.close();
      await engine.tearDown();
    });

    it("gives one task for a redelivered webhook", async () => {
      const queue = open();
      const first = await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-1" }));
      const again = await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-1" }));
      expect(first).toMatchObject({ accepted: true, reason: "enqueued" });
      expect(again).toEqual({ accepted: false, reason: "duplicate-delivery", taskId: first.taskId });
      expect((await queue.stats()).queued).toBe(1);
      expect(await queue.hasDelivery("d-1")).toBe(true);
      expect(await queue.hasDelivery("d-2")).toBe(false);
      expect(await queue.rememberDelivery("help-1")).toBe(true);
      expect(await queue.rememberDelivery("help-1")).toBe(false);
      expect(await queue.enqueue(task("o/r#1", "b", { deliveryId: "help-1" }))).toEqual({
        accepted: false,
        reason: "duplicate-delivery",
        taskId: null,
      });
    });

    it("keeps one running and one waiting task per key; a newer request replaces the waiting one", async () => {
      const queue = open();
      const first = await queue.enqueue(task("o/r#1", "first"));
      const running = await queue.claim("w1");
      expect(running?.taskId).toBe(first.taskId);
      const second = await queue.enqueue(task("o/r#1", "second"));
      expect(second.reason).toBe("enqueued");
      expect(await queue.claim("w2")).toBeNull();
      const third = await queue.enqueue(task("o/r#1", "third"));
      expect(third).toMatchObject({
        accepted: true,
        reason: "replaced-waiting",
        replacedTaskId: second.taskId,
      });
      expect((await queue.get(second.taskId!))?.state).toBe("superseded");
      expect(await queue.stats()).toMatchObject({ running: 1, queued: 1, superseded: 1 });
      expect(await queue.complete(running!, { ok: true })).toBe(true);
      const next = await queue.claim("w2");
      expect(next?.payload.label).toBe("third");
      expect(await queue.get(first.taskId!)).toMatchObject({ state: "completed", outcome: { ok: true } });
    });

    it("runs different keys side by side, in enqueue order", async () => {
      const queue = open({ globalConcurrency: 10, perInstallationConcurrency: 10 });
      for (const label of ["one", "two", "three"]) await queue.enqueue(task(`o/r#${label}`, label));
      const labels = [];
      for (let index = 0; index < 3; index += 1) labels.push((await queue.claim("w"))?.payload.label);
      expect(labels).toEqual(["one", "two", "three"]);
    });

    it("applies the global concurrency limit across connections", async () => {
      const a = open({ globalConcurrency: 2, perInstallationConcurrency: 10 });
      const b = open({ globalConcurrency: 2, perInstallationConcurrency: 10 });
      for (let index = 0; index < 5; index += 1) await a.enqueue(task(`o/r#${index}`, `t${index}`));
      const first = await a.claim("w");
      const second = await b.claim("w");
      expect(first).not.toBeNull();
      expect(second).not.toBeNull();
      expect(await a.claim("w")).toBeNull();
      expect(await b.claim("w")).toBeNull();
      await a.complete(first!, null);
      expect(await b.claim("w")).not.toBeNull();
      expect((await a.stats()).running).toBe(2);
    });

    it("applies the per-installation limit without blocking other installations", async () => {
      const queue = open({ globalConcurrency: 10, perInstallationConcurrency: 1 });
      await queue.enqueue(task("a/r#1", "a1", { installationId: 7 }));
      await queue.enqueue(task("a/r#2", "a2", { installationId: 7 }));
      await queue.enqueue(task("b/r#1", "b1", { installationId: 8 }));
      const first = await queue.claim("w");
      const second = await queue.claim("w");
      expect([first?.payload.label, second?.payload.label]).toEqual(["a1", "b1"]);
      expect(await queue.claim("w")).toBeNull();
      await queue.complete(first!, null);
      const third = await claimWithin(queue, 5000);
      expect(third.payload.label).toBe("a2");
    });

    it("sets no per-installation limit of its own: one installation's issues run up to the global limit", async () => {
      const queue = open({ globalConcurrency: 6 });
      for (let index = 1; index <= 7; index += 1)
        await queue.enqueue(task(`a/r#${index}`, `issue-${index}`, { installationId: 7 }));
      const claimed = [(await queue.claim("w"))?.payload.label];
      // A second request on a running issue waits for it, whatever the limits allow.
      await queue.enqueue(task("a/r#1", "issue-1-again", { installationId: 7 }));
      for (let index = 1; index < 6; index += 1) claimed.push((await queue.claim("w"))?.payload.label);
      expect(claimed).toEqual(["issue-1", "issue-2", "issue-3", "issue-4", "issue-5", "issue-6"]);
      expect(await queue.claim("w")).toBeNull();
      expect(await queue.stats()).toMatchObject({ running: 6, queued: 2 });
    });

    it("retries a retryable failure after backoff and stops after the last attempt", async () => {
      const queue = open({ maxAttempts: 2, retryBackoff: { baseMs: 300, maxMs: 1000 } });
      const { taskId } = await queue.enqueue(task("o/r#1", "flaky"));
      const attempt1 = await queue.claim("w");
      const before = Date.now();
      const failed = await queue.fail(attempt1!, "network down", { retryable: true });
      expect(failed.state).toBe("queued");
      if (failed.state === "queued") expect(failed.retryAt).toBeGreaterThanOrEqual(before + 300);
      expect(await queue.claim("w")).toBeNull();
      const attempt2 = await claimWithin(queue, 5000);
      expect(Date.now()).toBeGreaterThanOrEqual(before + 300);
      expect(attempt2.attempt).toBe(2);
      expect(await queue.fail(attempt2, "network down", { retryable: true })).toEqual({ state: "failed" });
      expect(await queue.get(taskId!)).toMatchObject({
        state: "failed",
        attempts: 2,
        lastError: "network down",
      });
    });

    it("does not retry a permanent failure", async () => {
      const queue = open();
      await queue.enqueue(task("o/r#1", "bad"));
      const claimed = await queue.claim("w");
      expect(await queue.fail(claimed!, "bad config", { retryable: false })).toEqual({ state: "failed" });
      expect(await queue.claim("w")).toBeNull();
      expect(await queue.stats()).toMatchObject({ failed: 1, queued: 0, running: 0 });
    });

    it("gives a task whose worker stopped renewing its lease to another worker, exactly once", async () => {
      const queue = open({ leaseMs: 800 });
      await queue.enqueue(task("o/r#1", "long"));
      const lost = await queue.claim("dead-worker");
      // Time is what is tested here: half a lease, a renewal, then another half.
      await sleep(400);
      expect(await queue.heartbeat(lost!)).toBe(true);
      await sleep(400);
      expect(await queue.claim("other")).toBeNull(); // renewed: still held
      const recovered = await claimWithin(queue, 6000);
      expect(recovered).toMatchObject({ taskId: lost!.taskId, attempt: 2 });
      expect(await queue.heartbeat(lost!)).toBe(false);
      expect(await queue.complete(lost!, "late")).toBe(false);
      expect(await queue.fail(lost!, "late", { retryable: true })).toEqual({ state: "lease-lost" });
      expect(await queue.complete(recovered, "done")).toBe(true);
      expect(await queue.get(lost!.taskId)).toMatchObject({
        state: "completed",
        outcome: "done",
        attempts: 2,
      });
    });

    it("hands a task whose lease expired on its last attempt out once more, to report, then fails it", async () => {
      const queue = open({ leaseMs: 300, maxAttempts: 1 });
      const { taskId } = await queue.enqueue(task("o/r#1", "poison"));
      await queue.claim("w");
      const report = await claimWithin(queue, 6000);
      expect(report).toMatchObject({ taskId, attempt: 2, maxAttempts: 1 });
      expect(isReportAttempt(report)).toBe(true);
      // The report attempt's worker stops too: no third claim, the task ends failed.
      await waitUntil(
        async () => {
          expect(await queue.claim("w")).toBeNull();
          return (await queue.get(taskId!))?.state === "failed";
        },
        "the poison task to fail",
        { timeoutMs: 6000 },
      );
      expect((await queue.get(taskId!))?.lastError).toMatch(/report attempt/);
    });

    it("supersedes a recovered task when a newer request for its key is waiting", async () => {
      const queue = open({ leaseMs: 300 });
      const old = await queue.enqueue(task("o/r#1", "old"));
      await queue.claim("w");
      await queue.enqueue(task("o/r#1", "new"));
      const next = await claimWithin(queue, 6000);
      expect(next.payload.label).toBe("new");
      expect((await queue.get(old.taskId!))?.state).toBe("superseded");
    });

    it("cancels the running and the waiting task of a key and tells listeners", async () => {
      const queue = open();
      const running = await queue.enqueue(task("o/r#1", "running"));
      await queue.claim("w");
      const waiting = await queue.enqueue(task("o/r#1", "waiting"));
      await queue.enqueue(task("o/r#2", "other"));
      const heard: string[] = [];
      queue.onCancel((id) => heard.push(id));
      const result = await queue.cancel("o/r#1");
      expect(result.wasRunning).toBe(true);
      expect([...result.cancelledTaskIds].sort()).toEqual([running.taskId, waiting.taskId].sort());
      expect(heard.sort()).toEqual([running.taskId, waiting.taskId].sort());
      expect(await queue.stats()).toMatchObject({ cancelled: 2, queued: 1, running: 0 });
      expect(await queue.cancel("o/r#9")).toEqual({ cancelledTaskIds: [], wasRunning: false });
      expect((await queue.claim("w"))?.payload.label).toBe("other");
    });

    it("tells its enqueue listeners of each accepted task, not of a redelivery or after they stop", async () => {
      const queue = open();
      const heard: string[] = [];
      const stop = queue.onEnqueue((taskId) => heard.push(taskId));
      const first = await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-listen-1" }));
      await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-listen-1" }));
      const replacing = await queue.enqueue(task("o/r#1", "b"));
      stop();
      await queue.enqueue(task("o/r#2", "c"));
      expect(heard).toEqual([first.taskId, replacing.taskId]);
    });

    it("cancels the running task of a superseded kind while enqueueing its successor, which then runs", async () => {
      const queue = open();
      const review = await queue.enqueue(task("o/r#1", "old review", { kind: "review" }));
      const claimed = await queue.claim("w1");
      expect(claimed?.taskId).toBe(review.taskId);
      const heard: [string, string][] = [];
      queue.onCancel((id, reason) => heard.push([id, reason]));
      const reason = "a newer push abc1234 arrived";
      const newer = await queue.enqueue(
        task("o/r#1", "new review", { kind: "review", supersedeRunning: { kinds: ["review"], reason } }),
      );
      expect(newer).toMatchObject({ accepted: true, reason: "enqueued", cancelledRunningTaskId: review.taskId });
      expect(heard).toEqual([[review.taskId, reason]]);
      expect(await queue.get(review.taskId!)).toMatchObject({ state: "cancelled", lastError: reason });
      // The cancelled run can no longer finish the task, and the successor may start at once.
      expect(await queue.complete(claimed!, { status: "review-posted" })).toBe(false);
      expect((await claimWithin(queue, 5000)).taskId).toBe(newer.taskId);
      expect(await queue.stats()).toMatchObject({ cancelled: 1, running: 1, completed: 0 });
    });

    it("leaves a running task of another kind, or without a kind, running when a newer task supersedes", async () => {
      const queue = open();
      const fix = await queue.enqueue(task("o/r#1", "fix", { kind: "fix" }));
      const plain = await queue.enqueue(task("o/r#2", "plain"));
      await queue.claim("w1");
      await queue.claim("w2");
      const heard: string[] = [];
      queue.onCancel((id) => heard.push(id));
      const supersedeRunning = { kinds: ["review"], reason: "a newer push arrived" };
      const afterFix = await queue.enqueue(task("o/r#1", "review", { kind: "review", supersedeRunning }));
      const afterPlain = await queue.enqueue(task("o/r#2", "review", { kind: "review", supersedeRunning }));
      expect(afterFix.cancelledRunningTaskId).toBeUndefined();
      expect(afterPlain.cancelledRunningTaskId).toBeUndefined();
      expect(heard).toEqual([]);
      expect((await queue.get(fix.taskId!))?.state).toBe("running");
      expect((await queue.get(plain.taskId!))?.state).toBe("running");
      expect(await queue.claim("w3")).toBeNull();
    });

    it("fails a stored task whose payload no longer decodes, without blocking the queue", async () => {
      const queue = open();
      await queue.enqueue({
        deliveryId: "x",
        key: "o/r#1",
        installationId: 1,
        payload: { label: 5 } as unknown as TestPayload,
      });
      await queue.enqueue(task("o/r#2", "good"));
      expect((await queue.claim("w"))?.payload.label).toBe("good");
      expect((await queue.stats()).failed).toBe(1);
    });

    it("rejects invalid input and use after close with coded errors", async () => {
      const queue = open();
      await expect(queue.enqueue(task("", "x"))).rejects.toMatchObject({ code: "INVALID_TASK" });
      await expect(queue.enqueue(task("o/r#1", "x", { installationId: 0 }))).rejects.toMatchObject({
        code: "INVALID_TASK",
      });
      await queue.close();
      await expect(queue.claim("w")).rejects.toMatchObject({ code: "QUEUE_CLOSED" });
    });

    it("serialises one key under concurrent enqueues from two connections: the newest waits", async () => {
      const a = open();
      const b = open();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? a : b).enqueue(task("o/r#1", `n${index}`)),
        ),
      );
      expect(results.every((result) => result.accepted)).toBe(true);
      const stats = await a.stats();
      expect(stats.queued).toBe(1);
      expect(stats.superseded).toBe(19);
      // The survivor is the one no later request replaced; which one that is depends on arrival.
      const replaced = new Set(results.map((result) => result.replacedTaskId));
      const survivors = results.filter((result) => !replaced.has(result.taskId!));
      expect(survivors).toHaveLength(1);
      expect((await a.claim("w"))?.taskId).toBe(survivors[0]!.taskId);
    });
  });
}
