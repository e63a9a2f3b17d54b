import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskQueue } from "../../src/queue/task-queue.js";
import {
  createManualClock,
  makeTempDir,
  openTestQueue,
  removeDir,
  task,
  type TestPayload,
} from "./queue-test-helpers.js";

const enqueueScript = fileURLToPath(new URL("./fixtures/enqueue-then-hang.ts", import.meta.url));

/** Enqueues one task from another process and waits until that process has committed it. */
function enqueueInChild(filePath: string, deliveryId: string, key: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", enqueueScript, filePath, deliveryId, key], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("ready\n")) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", () => {
      if (output.includes("ready\n")) resolve();
      else reject(new Error(`child ended before enqueueing: ${errors}`));
    });
  });
}

/**
 * An idle claim answers from memory while nothing changed; these check that every way work can
 * appear still reaches the next claim: another connection's commit, and time alone.
 */
describe("createSqliteTaskQueue's empty claims", () => {
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

  it("takes no write lock when nothing changed since the last empty claim", async () => {
    const queue = open();
    expect(await queue.claim("w1")).toBeNull();
    const holder = new Database(join(dir, "queue.sqlite"));
    holder.pragma("busy_timeout = 0");
    holder.exec("BEGIN IMMEDIATE");
    try {
      // With the write lock held elsewhere, a claim that took it would wait and then fail.
      expect(await queue.claim("w1")).toBeNull();
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  });

  it("claims a task another connection enqueued after an empty claim", async () => {
    const worker = open();
    const producer = open();
    expect(await worker.claim("w1")).toBeNull();
    const enqueued = await producer.enqueue(task("o/r#1", "a"));
    expect((await worker.claim("w1"))?.taskId).toBe(enqueued.taskId);
  });

  it("claims a task another process enqueued after an empty claim", async () => {
    const worker = open();
    expect(await worker.claim("w1")).toBeNull();
    await enqueueInChild(join(dir, "queue.sqlite"), "from-child", "o/r#2");
    expect((await worker.claim("w1"))?.deliveryId).toBe("from-child");
  });

  it("claims a task another connection's completion let start", async () => {
    const worker = open({ globalConcurrency: 1 });
    const other = open({ globalConcurrency: 1 });
    await other.enqueue(task("o/r#1", "a"));
    await other.enqueue(task("o/r#2", "b"));
    const first = await other.claim("w2");
    expect(await worker.claim("w1")).toBeNull();
    await other.complete(first!, { ok: true });
    expect((await worker.claim("w1"))?.payload.label).toBe("b");
  });

  it("claims a delayed retry once it is due, with no write in between", async () => {
    const clock = createManualClock();
    const worker = open({ now: clock.now, retryBackoff: { baseMs: 1000, maxMs: 1000 } });
    const other = open({ now: clock.now, retryBackoff: { baseMs: 1000, maxMs: 1000 } });
    await other.enqueue(task("o/r#1", "a"));
    const held = await other.claim("w2");
    const failed = await other.fail(held!, "try again", { retryable: true });
    expect(failed.state).toBe("queued");
    expect(await worker.claim("w1")).toBeNull();
    clock.advance(999);
    expect(await worker.claim("w1")).toBeNull();
    clock.advance(1);
    expect(await worker.claim("w1")).toMatchObject({ taskId: held!.taskId, attempt: 2 });
  });

  it("reclaims an expired lease, with no write in between", async () => {
    const clock = createManualClock();
    const worker = open({ now: clock.now, leaseMs: 5000 });
    const other = open({ now: clock.now, leaseMs: 5000 });
    await other.enqueue(task("o/r#1", "a"));
    const held = await other.claim("w2");
    expect(await worker.claim("w1")).toBeNull();
    clock.advance(5000);
    expect(await worker.claim("w1")).toBeNull();
    clock.advance(1);
    expect(await worker.claim("w1")).toMatchObject({ taskId: held!.taskId, attempt: 2 });
  });

  it("claims its own connection's enqueue after an empty claim", async () => {
    const queue = open();
    expect(await queue.claim("w1")).toBeNull();
    const enqueued = await queue.enqueue(task("o/r#1", "a"));
    expect((await queue.claim("w1"))?.taskId).toBe(enqueued.taskId);
  });
});
