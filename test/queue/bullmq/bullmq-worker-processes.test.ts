import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { BullmqTaskQueue } from "../../../src/queue/bullmq/create-bullmq-task-queue.js";
import type { EnqueueResult } from "../../../src/queue/task-queue.js";
import { makeTempDir, removeDir, task, type TestPayload } from "../queue-test-helpers.js";
import { waitUntil } from "../../support/wait-until.js";
import { openBullmqTestQueue, REDIS_URL, removeKeys, uniquePrefix } from "./redis-test-helpers.js";

const workerScript = fileURLToPath(new URL("./fixtures/bullmq-worker.ts", import.meta.url));
const enqueueScript = fileURLToPath(new URL("./fixtures/bullmq-enqueue.ts", import.meta.url));

interface RunningChild {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startChild(script: string, args: string[]): RunningChild {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const lines: string[] = [];
  let pending = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, lines, exited };
}

interface Marker {
  readonly kind: "start" | "done";
  readonly taskId: string;
  readonly attempt: number;
  readonly worker: string;
  readonly startedAt: number;
  readonly finishedAt?: number;
}

async function readMarkers(dir: string): Promise<Marker[]> {
  const markers: Marker[] = [];
  for (const name of await readdir(dir)) {
    const match = /^(start|done)-(.+)-(\d+)-(w\d)$/.exec(name);
    if (match === null) continue;
    const body = JSON.parse(await readFile(`${dir}/${name}`, "utf8")) as {
      startedAt: number;
      finishedAt?: number;
    };
    markers.push({
      kind: match[1] as "start" | "done",
      taskId: match[2]!,
      attempt: Number(match[3]),
      worker: match[4]!,
      ...body,
    });
  }
  return markers;
}

describe("BullMQ engine with worker processes on the real Redis", () => {
  let prefix: string;
  let markerDir: string;
  let queue: BullmqTaskQueue<TestPayload>;
  const children: RunningChild[] = [];
  const startWorker = (name: string, handlerMs: number): RunningChild => {
    const worker = startChild(workerScript, [REDIS_URL, prefix, markerDir, String(handlerMs), name, "1500"]);
    children.push(worker);
    return worker;
  };

  beforeEach(async () => {
    prefix = uniquePrefix();
    markerDir = await makeTempDir();
    queue = openBullmqTestQueue(prefix, {
      leaseMs: 1500,
      globalConcurrency: 8,
      perInstallationConcurrency: 8,
    });
  });
  afterEach(async () => {
    for (const { child, exited } of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    }
    await queue.close();
    await removeKeys(prefix);
    await removeDir(markerDir);
  });

  it("finishes the tasks of a worker killed with SIGKILL on the other worker, each completed once", async () => {
    const first = startWorker("w1", 2500);
    const second = startWorker("w2", 2500);
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1)
      ids.push((await queue.enqueue(task(`o/r#${index}`, `t${index}`))).taskId!);
    const startedBy = (worker: RunningChild): string[] =>
      worker.lines.filter((line) => line.startsWith("started ")).map((line) => line.slice(8));
    // Each worker runs two at once, so the four tasks are split between them.
    await waitUntil(
      () => startedBy(first).length === 2 && startedBy(second).length === 2,
      "each worker to start two tasks",
      { timeoutMs: 15_000 },
    );
    first.child.kill("SIGKILL");
    const killedTasks = startedBy(first);

    await waitUntil(async () => (await queue.stats()).completed === 4, "all four tasks to complete", {
      timeoutMs: 20_000,
    });
    const markers = await readMarkers(markerDir);
    for (const id of ids) {
      expect(markers.filter((marker) => marker.kind === "done" && marker.taskId === id)).toHaveLength(1);
    }
    expect(markers.filter((marker) => marker.worker === "w1" && marker.kind === "done")).toEqual([]);
    for (const id of killedTasks) {
      expect(await queue.get(id)).toMatchObject({
        state: "completed",
        attempts: 2,
        outcome: { worker: "w2" },
      });
    }
    expect(await queue.stats()).toMatchObject({ completed: 4, running: 0, queued: 0, failed: 0 });
    second.child.kill("SIGTERM");
    expect((await second.exited).code).toBe(0);
  }, 40_000);

  it("on SIGTERM stops claiming, finishes the running tasks and leaves the rest queued", async () => {
    const worker = startWorker("w1", 1200);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1)
      ids.push((await queue.enqueue(task(`o/r#${index}`, `t${index}`))).taskId!);
    await waitUntil(
      () => worker.lines.filter((line) => line.startsWith("started ")).length === 2,
      "the worker to start two tasks",
      { timeoutMs: 15_000 },
    );
    worker.child.kill("SIGTERM");
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    const started = worker.lines.filter((line) => line.startsWith("started ")).map((line) => line.slice(8));
    for (const id of started) expect((await queue.get(id))?.state).toBe("completed");
    const rest = ids.filter((id) => !started.includes(id));
    expect(rest).toHaveLength(1);
    expect(await queue.get(rest[0]!)).toMatchObject({ state: "queued", attempts: 0 });
    expect(await queue.stats()).toMatchObject({ running: 0, completed: 2, queued: 1 });
    // The task left behind is still claimable: nothing was lost with the worker.
    expect((await queue.claim("after"))?.taskId).toBe(rest[0]);
  }, 30_000);

  it("keeps per-key order under concurrent enqueues from two processes: one at a time, newest waits", async () => {
    startWorker("w1", 60);
    startWorker("w2", 60);
    // Which worker claims each survivor is up to Redis: rounds go on (at most five) until both
    // have run one, so the one-at-a-time rule is seen to hold across processes.
    const results: EnqueueResult[] = [];
    let done: Marker[] = [];
    for (let round = 0; round < 5; round += 1) {
      const producers = [
        startChild(enqueueScript, [REDIS_URL, prefix, "o/r#1", `p1-${round}`, "25"]),
        startChild(enqueueScript, [REDIS_URL, prefix, "o/r#1", `p2-${round}`, "25"]),
      ];
      children.push(...producers);
      for (const producer of producers) expect((await producer.exited).code).toBe(0);
      const roundResults = producers.flatMap((producer) =>
        producer.lines.map((line) => JSON.parse(line) as EnqueueResult),
      );
      expect(roundResults).toHaveLength(50);
      expect(roundResults.every((result) => result.accepted)).toBe(true);
      results.push(...roundResults);

      await waitUntil(
        async () => {
          const stats = await queue.stats();
          return (
            stats.queued === 0 && stats.running === 0 && stats.completed + stats.superseded === results.length
          );
        },
        "the round's tasks to settle",
        { timeoutMs: 20_000 },
      );
      done = (await readMarkers(markerDir)).filter((marker) => marker.kind === "done");
      if (new Set(done.map((marker) => marker.worker)).size === 2) break;
    }
    const replaced = new Set(results.flatMap((result) => result.replacedTaskId ?? []));
    const survivors = results.map((result) => result.taskId!).filter((id) => !replaced.has(id));
    // Every request that was not replaced while waiting ran, exactly once; no replaced one ran.
    expect(done.map((marker) => marker.taskId).sort()).toEqual([...survivors].sort());
    expect(survivors.length).toBeGreaterThan(1);
    const ordered = [...done].sort((a, b) => a.startedAt - b.startedAt);
    for (let index = 1; index < ordered.length; index += 1) {
      expect(ordered[index]!.startedAt).toBeGreaterThanOrEqual(ordered[index - 1]!.finishedAt!);
    }
    // Both workers took part, so the one-at-a-time rule held across processes.
    expect(new Set(done.map((marker) => marker.worker)).size).toBe(2);
  }, 120_000);
});
