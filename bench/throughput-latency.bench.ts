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
 * its turn after 1 s. The worker processes are started once (they serve both engines in turn)
 * and each runs one task before any case, so start-up and first-run costs are not counted; a
 * process not in a case has its loop paused. AGENTFORGE_BENCH_CLAIM_BLOCK_MS tries the Redis
 * engine's `claimBlockMs`. A case is a wave of N tasks, timed from the first enqueue to the last
 * completion; the rate is the median of its waves (AGENTFORGE_BENCH_WAVES, default 3; the tasks
 * per worker cases above N=1, which met the target with one wave, run one to keep the file
 * within the bench runner's deadline).
 * RSS: a warm worker's idle RSS, and its peak while N tasks run, per task. The App's idle RSS and
 * its time to first action are in bench/support/measure-first-action.ts, run from here.
 *
 *   npx tsx bench/throughput-latency.bench.ts
 */
import { fork, type ChildProcess } from "node:child_process";
import { on, once } from "node:events";
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
  serveLatencyWorker,
  type LatencyEngine,
  type LatencyWorkerCommand,
  type LatencyPayload,
  type LatencyWorkerMessage,
} from "./support/latency-worker.js";
import type { TaskQueue } from "../src/queue/task-queue.js";
import { measureFirstAction } from "./support/measure-first-action.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MODEL_LATENCY_MS = 1000;
const TASK_COUNTS = [1, 2, 4, 8, 16] as const;
const PROCESS_COUNTS = [2, 4, 8, 16] as const;
const POOL_SIZE = Math.max(...PROCESS_COUNTS);
/** Waves per worker-process case and for the single-task baseline. */
const WAVES = Number(process.env.AGENTFORGE_BENCH_WAVES ?? "3");
/** Set to try the Redis engine's `claimBlockMs` (off in the App by default). */
const CLAIM_BLOCK_MS = process.env.AGENTFORGE_BENCH_CLAIM_BLOCK_MS;
const THIS_FILE = fileURLToPath(import.meta.url);
const MIB = 1024 * 1024;
/** The 80 MB (10^6 bytes) per task, in MiB. */
const TASK_TARGET_MIB = (80 * 1_000_000) / MIB;

interface CaseResult {
  readonly tasksPerMinute: number;
  /** Of the case's busiest worker: RSS when its loop started (warm, idle) and its peak. */
  readonly startRssBytes: number;
  readonly peakRssBytes: number;
}

interface PoolWorker {
  readonly child: ChildProcess;
  /** Sends a command and resolves with the reply of the given type. */
  ask(command: LatencyWorkerCommand, reply: LatencyWorkerMessage["type"]): Promise<LatencyWorkerMessage>;
}

function nextMessage(child: ChildProcess, type: LatencyWorkerMessage["type"]): Promise<LatencyWorkerMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: LatencyWorkerMessage) => {
      if (message.type !== type) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(message);
    };
    const onExit = (code: number | null) =>
      reject(new Error(`a bench worker exited (${code}) before ${type}`));
    child.on("message", onMessage);
    child.once("exit", onExit);
  });
}

async function startPoolWorker(modelUrl: string): Promise<PoolWorker> {
  const child = fork(THIS_FILE, ["worker", modelUrl], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  try {
    await nextMessage(child, "ready");
    return {
      child,
      ask(command, reply) {
        const answer = nextMessage(child, reply);
        child.send(command);
        return answer;
      },
    };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

let enqueued = 0;

/** Runs `waves` waves of (workers × concurrency) tasks on warm workers; the median rate. */
async function measureCase(
  engine: LatencyEngine,
  queue: TaskQueue<LatencyPayload>,
  label: string,
  workers: readonly PoolWorker[],
  concurrency: number,
  waves: number,
): Promise<CaseResult> {
  await Promise.all(workers.map((worker) => worker.ask({ type: "start", engine, concurrency }, "started")));
  const tasks = workers.length * concurrency;
  const rates: number[] = [];
  let paused: LatencyWorkerMessage[] = [];
  try {
    for (let wave = 0; wave < waves; wave += 1) {
      const completedBefore = (await queue.stats()).completed;
      const begin = performance.now();
      for (let index = 0; index < tasks; index += 1) {
        enqueued += 1;
        await queue.enqueue({
          deliveryId: `d-${enqueued}`,
          key: `octo/demo#${enqueued}`,
          installationId: 1,
          payload: { index: enqueued },
        });
      }
      for (;;) {
        const stats = await queue.stats();
        if (stats.failed > 0) throw new Error(`${stats.failed} bench task(s) failed`);
        if (stats.completed >= completedBefore + tasks) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const elapsedMs = performance.now() - begin;
      rates.push((tasks / elapsedMs) * 60_000);
      process.stderr.write(`${label}, wave ${wave + 1}: ${tasks} tasks in ${Math.round(elapsedMs)} ms\n`);
    }
  } finally {
    paused = await Promise.all(workers.map((worker) => worker.ask({ type: "pause" }, "paused")));
  }
  const reports = paused.flatMap((message) => (message.type === "paused" ? [message] : []));
  const busiest = reports.reduce((top, report) =>
    report.peakRssBytes - report.startRssBytes > top.peakRssBytes - top.startRssBytes ? report : top,
  );
  return {
    tasksPerMinute: median(rates),
    startRssBytes: busiest.startRssBytes,
    peakRssBytes: busiest.peakRssBytes,
  };
}

async function measureEngine(kind: "sqlite" | "redis", pool: readonly PoolWorker[]): Promise<BenchRow[]> {
  const engineLabel =
    kind === "sqlite"
      ? "SQLite"
      : CLAIM_BLOCK_MS === undefined
        ? "Redis"
        : `Redis (claimBlockMs ${CLAIM_BLOCK_MS})`;
  const folder = await mkdtemp(path.join(tmpdir(), "agentforge-bench-latency-queue-"));
  const engine: LatencyEngine =
    kind === "sqlite"
      ? { kind, filePath: path.join(folder, "queue.sqlite") }
      : {
          kind,
          url: REDIS_URL,
          prefix: `agentforge-bench-${randomUUID()}`,
          ...(CLAIM_BLOCK_MS === undefined ? {} : { claimBlockMs: Number(CLAIM_BLOCK_MS) }),
        };
  const queue = openLatencyQueue(engine);
  const rows: BenchRow[] = [];
  try {
    const first = pool[0]!;
    const perWorker = new Map<number, CaseResult>();
    for (const n of TASK_COUNTS) {
      const label = `${engineLabel}, 1 process × ${n}`;
      perWorker.set(n, await measureCase(engine, queue, label, [first], n, n === 1 ? WAVES : 1));
    }
    const single = perWorker.get(1)?.tasksPerMinute ?? Number.NaN;
    for (const n of TASK_COUNTS)
      rows.push(
        throughputRow(`${engineLabel}, tasks per worker`, n, perWorker.get(n)?.tasksPerMinute ?? 0, single),
      );
    for (const processes of PROCESS_COUNTS) {
      const label = `${engineLabel}, ${processes} processes × 1`;
      const result = await measureCase(engine, queue, label, pool.slice(0, processes), 1, WAVES);
      rows.push(throughputRow(`${engineLabel}, worker processes`, processes, result.tasksPerMinute, single));
    }
    const busiest = perWorker.get(16);
    if (busiest !== undefined) {
      rows.push({
        benchmark: "throughput-latency",
        case: `${engineLabel}: worker process RSS, idle (warm: after one task)`,
        value: Math.round(busiest.startRssBytes / MIB),
        unit: "MiB",
      });
      const perTask = (busiest.peakRssBytes - busiest.startRssBytes) / MIB / 16;
      rows.push({
        benchmark: "throughput-latency",
        case: `${engineLabel}: RSS added per running task (peak with 16 running − idle, / 16)`,
        value: Math.round(perTask),
        unit: "MiB",
        target: `≤ 80 MB (${TASK_TARGET_MIB.toFixed(1)} MiB)`,
        targetMet: perTask <= TASK_TARGET_MIB,
      });
    }
  } finally {
    await queue.close();
    if (engine.kind === "redis") await removeKeys(engine.prefix);
    await rm(folder, { recursive: true, force: true });
  }
  return rows;
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
  const started = await Promise.allSettled(
    Array.from({ length: POOL_SIZE }, () => startPoolWorker(model.url)),
  );
  const pool = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  try {
    const failed = started.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    for (const kind of ["sqlite", "redis"] as const) rows.push(...(await measureEngine(kind, pool)));
  } finally {
    await Promise.all(
      pool.map(async (worker) => {
        if (worker.child.exitCode !== null) return;
        const exited = once(worker.child, "exit");
        worker.child.send({ type: "exit" } satisfies LatencyWorkerCommand);
        await exited;
      }),
    );
    await model.close();
  }
  rows.push(...(await measureFirstAction()));
  return rows;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === "worker") {
    const commands = on(process, "message") as AsyncIterableIterator<[LatencyWorkerCommand]>;
    await serveLatencyWorker(
      process.argv[3] ?? "",
      (message) => process.send?.(message),
      (async function* () {
        for await (const [command] of commands) yield command;
      })(),
    );
    process.disconnect?.();
    // The model client's keep-alive sockets would hold the process a few seconds more.
    process.exit(0);
  } else {
    const rows = await run();
    console.table(rows);
    console.log(JSON.stringify(rows, null, 2));
  }
}
