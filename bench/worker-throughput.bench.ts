/**
 * Tasks per minute with 1, 2 and 4 workers on the Redis queue (BullMQ engine, real Redis at
 * REDIS_URL or 127.0.0.1:6379, a unique key prefix removed afterwards).
 *
 * Each worker is a separate child process (this file, started with `worker` and tsx), running one
 * task at a time with the worker loop the App uses. Each task is a real core run: createAgentRunner
 * with an in-process model that answers at once, three turns (read_file, read_file, final answer)
 * on a small temp workspace, with the trace, the checkpoints and the tool registry all working.
 * Tasks go to distinct keys, so only the engine's own limits order them. The clock starts when
 * every worker says it is ready and the tasks are enqueued, and stops when the last one completes.
 * The machine's core count bounds the speed-up: the figures are for this machine, said in the rows.
 *
 *   npx tsx bench/worker-throughput.bench.ts
 */
import { runLimits } from "../src/core/config/run-limits.js";
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import type { BenchRow, Benchmark } from "./bench-types.js";
import { createAgentRunner } from "../src/core/create-agent-runner.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../src/core/model/model-types.js";
import { createBullmqTaskQueue } from "../src/queue/bullmq/create-bullmq-task-queue.js";
import { runWorkerLoop } from "../src/queue/run-worker-loop.js";
import type { TaskQueue } from "../src/queue/task-queue.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WORKER_COUNTS = [1, 2, 4] as const;
const TASKS = Number(process.env.AGENTFORGE_BENCH_TASKS ?? "40");
const CASE_TIMEOUT_MS = 40_000;
const THIS_FILE = fileURLToPath(import.meta.url);

interface BenchPayload {
  readonly index: number;
}

function decodePayload(value: unknown): BenchPayload {
  if (typeof value === "object" && value !== null && "index" in value && typeof value.index === "number")
    return { index: value.index };
  throw new Error("not a bench payload");
}

function openQueue(prefix: string): TaskQueue<BenchPayload> {
  return createBullmqTaskQueue({
    connection: REDIS_URL,
    prefix,
    decodePayload,
    // The engine's limits are not what is measured here: the worker count is.
    globalConcurrency: 64,
    perInstallationConcurrency: 64,
    busyRetryMs: 20,
  });
}

/** Answers at once: two read_file calls, then a final answer (three model turns). */
function createInstantModel(): ModelClient {
  return {
    model: "bench-instant",
    complete(request: ModelRequest): Promise<ModelResponse> {
      const turn = request.messages.filter((message) => message.role === "assistant").length;
      const usage = { promptTokens: 200, completionTokens: 20, totalTokens: 220 };
      if (turn < 2) {
        return Promise.resolve({
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `call_${turn}`,
                type: "function",
                function: {
                  name: "read_file",
                  arguments: JSON.stringify({ path: turn === 0 ? "a.js" : "b.js" }),
                },
              },
            ],
          },
          finishReason: "tool_calls",
          usage,
          model: "bench-instant",
          costUsd: 0.0001,
          attempts: 1,
        });
      }
      return Promise.resolve({
        message: { role: "assistant", content: "Both files read; nothing to change." },
        finishReason: "stop",
        usage,
        model: "bench-instant",
        costUsd: 0.0001,
        attempts: 1,
      });
    },
  };
}

/** The child: one worker process, one task at a time, until told to stop. */
async function runWorkerProcess(prefix: string): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "agentforge-bench-worker-"));
  const workspace = path.join(root, "workspace");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.js"), "export const a = 1;\n".repeat(40));
  await writeFile(path.join(workspace, "b.js"), "export const b = 2;\n".repeat(40));
  const runner = createAgentRunner({
    model: createInstantModel(),
    dataDir: path.join(root, "data"),
    settings: { limits: runLimits({ maxTurns: 10 }), contextWindow: 128_000, configDigest: "bench" },
  });
  const queue = openQueue(prefix);
  const controller = new AbortController();
  process.on("message", (message) => {
    if (message === "stop") controller.abort();
  });
  process.send?.("ready");
  await runWorkerLoop(
    queue,
    async (task) => {
      const result = await runner.run({
        prompt: `Read a.js and b.js (task ${task.payload.index}).`,
        workspaceRoot: workspace,
        mode: "build",
        approvalMode: "never",
        allowPrefixes: [],
      });
      if (result.exitReason !== "final_answer") throw new Error(`run ended with ${result.exitReason}`);
      return { turns: result.turns };
    },
    { concurrency: 1, signal: controller.signal, pollMs: 5 },
  );
  await queue.close();
  await rm(root, { recursive: true, force: true });
}

async function removeKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    await redis.quit();
  }
}

function startWorker(prefix: string): { child: ChildProcess; ready: Promise<void>; exited: Promise<void> } {
  const child = fork(THIS_FILE, ["worker", prefix], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`a bench worker exited early (${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, ready, exited };
}

/** Tasks per minute with `workers` worker processes. */
async function measure(workers: number): Promise<number> {
  const prefix = `agentforge-bench-${randomUUID()}`;
  const started = Array.from({ length: workers }, () => startWorker(prefix));
  const queue = openQueue(prefix);
  try {
    await Promise.all(started.map((worker) => worker.ready));
    const begin = performance.now();
    for (let index = 0; index < TASKS; index += 1) {
      await queue.enqueue({
        deliveryId: `d-${index}`,
        key: `bench/repo#${index}`,
        installationId: 1 + (index % 4),
        payload: { index },
      });
    }
    const deadline = Date.now() + CASE_TIMEOUT_MS;
    for (;;) {
      const stats = await queue.stats();
      if (stats.failed > 0) throw new Error(`${stats.failed} bench task(s) failed`);
      if (stats.completed >= TASKS) break;
      if (Date.now() > deadline)
        throw new Error(`only ${stats.completed} of ${TASKS} tasks in ${CASE_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const elapsedMs = performance.now() - begin;
    return (TASKS / elapsedMs) * 60_000;
  } finally {
    for (const worker of started) worker.child.send("stop");
    await Promise.race([
      Promise.all(started.map((worker) => worker.exited)),
      new Promise((r) => setTimeout(r, 5_000)),
    ]);
    for (const worker of started) if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
    await queue.close();
    await removeKeys(prefix);
  }
}

export const run: Benchmark = async () => {
  const cores = availableParallelism();
  const rates = new Map<number, number>();
  for (const workers of WORKER_COUNTS) rates.set(workers, await measure(workers));
  const single = rates.get(1) ?? 0;
  return WORKER_COUNTS.map((workers): BenchRow => {
    const rate = rates.get(workers) ?? 0;
    return {
      benchmark: "worker-throughput",
      case: `${workers} worker process${workers === 1 ? "" : "es"}, ${TASKS} tasks of 3 turns, Redis queue, ${cores} cores`,
      value: Math.round(rate),
      unit: "tasks/min",
      ...(workers === 1
        ? {}
        : {
            baseline: Math.round(single),
            baselineLabel: "1 worker",
            ratio: Number((rate / single).toFixed(2)),
          }),
    };
  });
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "worker") {
    await runWorkerProcess(process.argv[3] ?? "");
  } else {
    const rows = await run();
    console.table(rows);
    console.log(JSON.stringify(rows, null, 2));
  }
}
