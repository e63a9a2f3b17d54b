import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { join } from "node:path";
import { isReportAttempt, type TaskQueue } from "../../src/queue/task-queue.js";
import {
  createManualClock,
  makeTempDir,
  openTestQueue,
  removeDir,
  task,
  type TestPayload,
} from "./queue-test-helpers.js";

describe("createSqliteTaskQueue", () => {
  let dir: string;
  const opened: TaskQueue<TestPayload>[] = [];
  const open = (options: Parameters<typeof openTestQueue>[1] = {}): TaskQueue<TestPayload> => {
    const queue = openTestQueue(dir, options);
    opened.push(queue);
    return queue;
  };

  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    for (const queue of opened.splice(0)) await queue.close();
    await removeDir(dir);
  });

  it("stores the queue in WAL mode", async () => {
    const queue = open();
    await queue.stats();
    const db = new Database(join(dir, "queue.sqlite"), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("refuses a second task from the same delivery id", async () => {
    const queue = open();
    const first = await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-1" }));
    const again = await queue.enqueue(task("o/r#1", "a", { deliveryId: "d-1" }));
    expect(first).toMatchObject({ accepted: true, reason: "enqueued" });
    expect(again).toEqual({ accepted: false, reason: "duplicate-delivery", taskId: first.taskId });
    expect((await queue.stats()).queued).toBe(1);
    expect(await queue.hasDelivery("d-1")).toBe(true);
    expect(await queue.hasDelivery("d-2")).toBe(false);
  });

  it("treats a delivery answered without a task as seen", async () => {
    const queue = open();
    expect(await queue.rememberDelivery("help-1")).toBe(true);
    expect(await queue.rememberDelivery("help-1")).toBe(false);
    const result = await queue.enqueue(task("o/r#1", "a", { deliveryId: "help-1" }));
    expect(result).toEqual({ accepted: false, reason: "duplicate-delivery", taskId: null });
  });

  it("keeps one running and one waiting task per key; a newer request replaces the waiting one", async () => {
    const queue = open();
    const first = await queue.enqueue(task("o/r#1", "first"));
    const running = await queue.claim("w1");
    expect(running?.taskId).toBe(first.taskId);

    const second = await queue.enqueue(task("o/r#1", "second"));
    expect(second.reason).toBe("enqueued");
    // The key is busy: the waiting task may not start beside the running one.
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
  });

  it("runs different keys side by side and in enqueue order", async () => {
    const queue = open();
    await queue.enqueue(task("o/r#1", "one"));
    await queue.enqueue(task("o/r#2", "two"));
    const a = await queue.claim("w");
    const b = await queue.claim("w");
    expect([a?.payload.label, b?.payload.label]).toEqual(["one", "two"]);
  });

  it("applies the global concurrency limit", async () => {
    const queue = open({ globalConcurrency: 2, perInstallationConcurrency: 10 });
    for (let index = 0; index < 5; index += 1) await queue.enqueue(task(`o/r#${index}`, `t${index}`));
    const first = await queue.claim("w");
    const second = await queue.claim("w");
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(await queue.claim("w")).toBeNull();
    await queue.complete(first!, null);
    expect(await queue.claim("w")).not.toBeNull();
    expect((await queue.stats()).running).toBe(2);
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
  });

  it("retries a retryable failure after backoff and stops after the last attempt", async () => {
    const clock = createManualClock();
    const queue = open({ now: clock.now, maxAttempts: 2, retryBackoff: { baseMs: 1000, maxMs: 10_000 } });
    const { taskId } = await queue.enqueue(task("o/r#1", "flaky"));
    const attempt1 = await queue.claim("w");
    expect(await queue.fail(attempt1!, "network down", { retryable: true })).toEqual({
      state: "queued",
      retryAt: clock.now() + 1000,
    });
    expect(await queue.claim("w")).toBeNull();
    clock.advance(1000);
    const attempt2 = await queue.claim("w");
    expect(attempt2?.attempt).toBe(2);
    expect(await queue.fail(attempt2!, "network down", { retryable: true })).toEqual({ state: "failed" });
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
  });

  it("gives a task whose worker stopped heartbeating to another worker, keeping the attempt count", async () => {
    const clock = createManualClock();
    const queue = open({ now: clock.now, leaseMs: 1000 });
    await queue.enqueue(task("o/r#1", "long"));
    const lost = await queue.claim("dead-worker");
    clock.advance(900);
    expect(await queue.heartbeat(lost!)).toBe(true);
    clock.advance(900);
    expect(await queue.claim("other")).toBeNull(); // lease was renewed: still held
    clock.advance(200);
    const recovered = await queue.claim("other");
    expect(recovered).toMatchObject({ taskId: lost!.taskId, attempt: 2 });
    // The dead worker's lease is void: it can neither renew nor complete the task.
    expect(await queue.heartbeat(lost!)).toBe(false);
    expect(await queue.complete(lost!, "late")).toBe(false);
    expect(await queue.fail(lost!, "late", { retryable: true })).toEqual({ state: "lease-lost" });
    expect(await queue.complete(recovered!, "done")).toBe(true);
    expect(await queue.get(lost!.taskId)).toMatchObject({ state: "completed", outcome: "done", attempts: 2 });
  });

  it("hands a task whose lease expired on its last attempt out once more, to report, then fails it (a poison task cannot loop forever)", async () => {
    const clock = createManualClock();
    const queue = open({ now: clock.now, leaseMs: 100, maxAttempts: 1 });
    const { taskId } = await queue.enqueue(task("o/r#1", "poison"));
    await queue.claim("w");
    clock.advance(101);
    const report = await queue.claim("w");
    expect(report).toMatchObject({ taskId, attempt: 2, maxAttempts: 1 });
    expect(isReportAttempt(report!)).toBe(true);
    clock.advance(101);
    expect(await queue.claim("w")).toBeNull();
    expect(await queue.get(taskId!)).toMatchObject({
      state: "failed",
      lastError: expect.stringMatching(/report attempt/),
    });
  });

  it("supersedes a recovered task when a newer request for its key is waiting", async () => {
    const clock = createManualClock();
    const queue = open({ now: clock.now, leaseMs: 100 });
    const old = await queue.enqueue(task("o/r#1", "old"));
    await queue.claim("w");
    await queue.enqueue(task("o/r#1", "new"));
    clock.advance(101);
    const next = await queue.claim("w");
    expect(next?.payload.label).toBe("new");
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
  });

  it("keeps accepted tasks across a close and reopen", async () => {
    const first = open();
    await first.enqueue(task("o/r#1", "persisted", { deliveryId: "keep-1" }));
    await first.close();
    const second = open();
    expect((await second.claim("w"))?.payload.label).toBe("persisted");
    expect((await second.enqueue(task("o/r#1", "again", { deliveryId: "keep-1" }))).reason).toBe(
      "duplicate-delivery",
    );
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

  it("serialises one key under concurrent enqueues from two connections", async () => {
    const a = open();
    const b = open();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? a : b).enqueue(task("o/r#1", `n${index}`))),
    );
    expect(results.every((result) => result.accepted)).toBe(true);
    const stats = await a.stats();
    expect(stats.queued).toBe(1);
    expect(stats.superseded).toBe(19);
    expect((await a.claim("w"))?.payload.label).toBe("n19");
  });
});
