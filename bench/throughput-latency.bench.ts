/**
 * Throughput against model latency: tasks per minute with N tasks at once, N = 1, 2, 4, 8, 16,
 * when every model answer takes 1 s, against N × the rate of one task at a time (target ≥ 0.9).
 * The concurrency is either tasks per worker (one worker process, the worker loop's
 * `concurrency`, as AGENTFORGE_WORKER_CONCURRENCY sets it) or worker processes (one task
 * each), on the embedded SQLite queue and on BullMQ with the local Redis. Every task belongs
 * to ONE installation, on its own issue, with the queue's default per-installation setting.
 *
 * A task is a real core run (createAgentRunner, three model turns: two read_file calls and an
 * answer, on a small workspace) against the mock model server over HTTP, answering each run by
 * its turn after 1 s. Each case runs N tasks (one wave; more with AGENTFORGE_BENCH_WAVES).
 * RSS: a worker's idle RSS, and its peak while N tasks run, per task. The App's idle RSS and its
 * time to first action are in bench/support/measure-first-action.ts, run from here.
 *
 *   npx tsx bench/throughput-latency.bench.ts
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import type { BenchRow, Benchmark } from "./bench-types.js";
import { startMockModelServer } from "../src/mock-model/start-mock-model-server.js";
import { parseMockScript } from "../src/mock-model/mock-script.js";
import {
  openLatencyQueue,
  runLatencyWorker,
  type LatencyEngine,
  type LatencyWorkerMessage,
} from "./support/latency-worker.js";
import { measureFirstAction } from "./support/measure-first-action.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MODEL_LATENCY_MS = 1000;
const TASK_COUNTS = [1, 2, 4, 8, 16] as const;
const PROCESS_COUNTS = [2, 4] as const;
/** Tasks per case: N × this many waves (default 1, so the file fits the bench runner's deadline). */
const WAVES = Number(process.env.AGENTFORGE_BENCH_WAVES ?? "1");
const THIS_FILE = fileURLToPath(import.meta.url);
const MB = 1024 * 1024;

interface CaseResult {
  readonly tasksPerMinute: number;
  readonly idleRssBytes: number;
  readonly peakRssBytes: number;
}

interface StartedWorker {
  readonly child: ChildProcess;
  readonly ready: Promise<number>;
  readonly stopped: Promise<number>;
}

function startWorker(engine: LatencyEngine, concurrency: number, modelUrl: string): StartedWorker {
  const child = fork(THIS_FILE, ["worker", JSON.stringify(engine), String(concurrency), modelUrl], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const waitFor = (type: LatencyWorkerMessage["type"]) =>
    new Promise<number>((resolve, reject) => {
      child.on("message", (message: LatencyWorkerMessage) => {
        if (message.type === "ready" && type === "ready") resolve(message.rssBytes);
        if (message.type === "stopped" && type === "stopped") resolve(message.peakRssBytes);
      });
      child.once("exit", (code) => reject(new Error(`a bench worker exited (${code}) before ${type}`)));
    });
  return { child, ready: waitFor("ready"), stopped: waitFor("stopped") };
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

async function measureCase(
  kind: "sqlite" | "redis",
  processes: number,
  perWorker: number,
  modelUrl: string,
): Promise<CaseResult> {
  const folder = await mkdtemp(path.join(tmpdir(), "agentforge-bench-latency-queue-"));
  const engine: LatencyEngine =
    kind === "sqlite"
      ? { kind, filePath: path.join(folder, "queue.sqlite") }
      : { kind, url: REDIS_URL, prefix: `agentforge-bench-${randomUUID()}` };
  const tasks = WAVES * processes * perWorker;
  const queue = openLatencyQueue(engine);
  const workers = Array.from({ length: processes }, () => startWorker(engine, perWorker, modelUrl));
  try {
    const idle = await Promise.all(workers.map((worker) => worker.ready));
    const begin = performance.now();
    for (let index = 0; index < tasks; index += 1)
      await queue.enqueue({
        deliveryId: `d-${index}`,
        key: `octo/demo#${index + 1}`,
        installationId: 1,
        payload: { index },
      });
    for (;;) {
      const stats = await queue.stats();
      if (stats.failed > 0) throw new Error(`${stats.failed} bench task(s) failed`);
      if (stats.completed >= tasks) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsedMs = performance.now() - begin;
    process.stderr.write(
      `${kind}, ${processes} process(es) × ${perWorker}: ${tasks} tasks in ${Math.round(elapsedMs)} ms\n`,
    );
    for (const worker of workers) worker.child.send("stop");
    const peaks = await Promise.all(workers.map((worker) => worker.stopped));
    return {
      tasksPerMinute: (tasks / elapsedMs) * 60_000,
      idleRssBytes: Math.max(...idle),
      peakRssBytes: Math.max(...peaks),
    };
  } finally {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
    await queue.close();
    if (engine.kind === "redis") await removeKeys(engine.prefix);
    await rm(folder, { recursive: true, force: true });
  }
}

function throughputRow(label: string, n: number, rate: number, single: number): BenchRow {
  const ideal = single * n;
  const ratio = Number((rate / ideal).toFixed(2));
  return {
    benchmark: "throughput-latency",
    case: `${label}, N=${n}, 1 s model latency, ${availableParallelism()} cores`,
    value: Math.round(rate * 10) / 10,
    unit: "tasks/min",
    baseline: Math.round(ideal * 10) / 10,
    baselineLabel: `${n} × one task's rate`,
    ratio,
    target: "≥ 0.9 × N × one task's rate",
    targetMet: ratio >= 0.9,
  };
}

export const run: Benchmark = async () => {
  const script = parseMockScript({
    steps: [
      { type: "tool_calls", calls: [{ name: "read_file", arguments: { path: "a.js" } }] },
      { type: "tool_calls", calls: [{ name: "read_file", arguments: { path: "b.js" } }] },
      { type: "text", text: "Both files read; nothing to change." },
    ],
  });
  if (!script.success) throw new Error(script.error);
  const model = await startMockModelServer({
    script: script.value,
    steps: "turn",
    delayMs: MODEL_LATENCY_MS,
  });
  const rows: BenchRow[] = [];
  try {
    for (const kind of ["sqlite", "redis"] as const) {
      const engineLabel = kind === "sqlite" ? "SQLite" : "Redis";
      const results = new Map<number, CaseResult>();
      for (const n of TASK_COUNTS) results.set(n, await measureCase(kind, 1, n, model.url));
      const single = results.get(1)?.tasksPerMinute ?? 0;
      for (const n of TASK_COUNTS)
        rows.push(
          throughputRow(`${engineLabel}, tasks per worker`, n, results.get(n)?.tasksPerMinute ?? 0, single),
        );
      for (const processes of PROCESS_COUNTS) {
        const result = await measureCase(kind, processes, 1, model.url);
        rows.push(
          throughputRow(`${engineLabel}, worker processes`, processes, result.tasksPerMinute, single),
        );
      }
      const busiest = results.get(16);
      if (busiest !== undefined) {
        rows.push({
          benchmark: "throughput-latency",
          case: `${engineLabel}: worker process RSS, idle`,
          value: Math.round(busiest.idleRssBytes / MB),
          unit: "MB",
        });
        rows.push({
          benchmark: "throughput-latency",
          case: `${engineLabel}: RSS added per running task (peak with 16 running − idle, / 16)`,
          value: Math.round((busiest.peakRssBytes - busiest.idleRssBytes) / MB / 16),
          unit: "MB",
          target: "≤ 80 MB",
          targetMet: (busiest.peakRssBytes - busiest.idleRssBytes) / MB / 16 <= 80,
        });
      }
    }
  } finally {
    await model.close();
  }
  rows.push(...(await measureFirstAction()));
  return rows;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "worker") {
    const controller = new AbortController();
    process.on("message", (message) => {
      if (message === "stop") controller.abort();
    });
    await runLatencyWorker(
      JSON.parse(process.argv[3] ?? "{}") as LatencyEngine,
      Number(process.argv[4] ?? "1"),
      process.argv[5] ?? "",
      (message) => process.send?.(message),
      controller.signal,
    );
    process.disconnect?.();
  } else {
    const rows = await run();
    console.table(rows);
    console.log(JSON.stringify(rows, null, 2));
  }
}
