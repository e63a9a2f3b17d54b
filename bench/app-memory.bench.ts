/**
 * Memory of `agentforge serve` (issue 17: the idle server ≤ 150 MB, each running task ≤ 80 MB
 * more), read from /proc as VmRSS (every thread of the process). Each start is a fresh serve
 * against the GitHub stand-in and the mock model (bench/support/start-app-stand.ts), on the
 * embedded SQLite queue and with REDIS_URL (serve only takes webhooks in; workers run apart).
 * Idle is read SETTLE_MS after serve says it listens; the median of the starts is the figure.
 * On SQLite serve runs tasks itself: one start then runs two fixes one after the other (the
 * mock model answers at once) and reports the highest RSS seen while each ran, over idle. The
 * first includes the modules only a task loads (the OpenAI SDK, the bash parser).
 *
 *   npm run bench -- --only app-memory
 */
import os from "node:os";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { REDIS_URL, removeKeys } from "../test/queue/bullmq/redis-test-helpers.js";
import { readProcessRss } from "./support/read-process-rss.js";
import { startAppStand, type AppStandOptions } from "./support/start-app-stand.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const BENCHMARK = "app-memory";
const STARTS = Math.max(3, Number(process.env.AGENTFORGE_BENCH_APP_MEMORY_STARTS ?? "3"));
const SETTLE_MS = 5_000;
const SAMPLE_INTERVAL_MS = 20;
const IDLE_TARGET_MB = 150;
const TASK_TARGET_MB = 80;
/** The issue's targets are in MB (10^6 bytes); the kernel reports KiB, shown here as MiB. */
const toMiB = (megabytes: number): number => (megabytes * 1_000_000) / 2 ** 20;
const targetText = (megabytes: number): string => `≤ ${megabytes} MB (${toMiB(megabytes).toFixed(1)} MiB)`;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
}

function range(samples: readonly number[]): string {
  const summary = summarizeSamples(samples);
  return `range ${summary.min.toFixed(0)}–${summary.max.toFixed(0)} MiB`;
}

/** The highest RSS of `pid` until `isDone()`, sampled every SAMPLE_INTERVAL_MS. */
async function peakRssUntil(pid: number, isDone: () => boolean): Promise<number> {
  let peak = 0;
  while (!isDone()) {
    peak = Math.max(peak, await readProcessRss(pid));
    await sleep(SAMPLE_INTERVAL_MS);
  }
  return Math.max(peak, await readProcessRss(pid));
}

async function measureIdle(options: AppStandOptions): Promise<number[]> {
  const samples: number[] = [];
  for (let start = 0; start < STARTS; start += 1) {
    const stand = await startAppStand(options);
    try {
      await sleep(SETTLE_MS);
      samples.push(await readProcessRss(stand.serve.pid));
    } finally {
      await stand.stop();
    }
  }
  return samples;
}

/** Peak RSS over idle while each of `count` fixes runs, one after the other, on one serve. */
async function measureTasks(count: number): Promise<{ idle: number; added: number[] }> {
  const stand = await startAppStand({ modelLatencyMs: 0, tasksPerWorker: 1 });
  try {
    await sleep(SETTLE_MS);
    const idle = await readProcessRss(stand.serve.pid);
    const added: number[] = [];
    for (let task = 0; task < count; task += 1) {
      const sent = await stand.sendFix(`app-memory-${task}`);
      if (sent.status !== 200 && sent.status !== 202)
        throw new Error(`the webhook was answered ${sent.status}`);
      const peak = await peakRssUntil(stand.serve.pid, () => stand.isFixDone(sent.issue));
      added.push(peak - idle);
    }
    return { idle, added };
  } finally {
    await stand.stop();
  }
}

function idleRow(label: string, samples: readonly number[], load: string): BenchRow {
  const median = summarizeSamples(samples).median;
  return {
    benchmark: BENCHMARK,
    case: `serve idle, ${label} (VmRSS ${SETTLE_MS / 1000} s after listening, median of ${samples.length} starts, ${range(samples)}; load ${load})`,
    value: roundTo(median, 1),
    unit: "MiB",
    target: targetText(IDLE_TARGET_MB),
    targetMet: median <= toMiB(IDLE_TARGET_MB),
  };
}

export const run: Benchmark = async () => {
  const sqliteLoad = loadAverage();
  const sqlite = await measureIdle({ modelLatencyMs: 0, tasksPerWorker: 2 });
  const redisLoad = loadAverage();
  const prefix = `agentforge-bench-memory-${process.pid}`;
  const redis = await measureIdle({
    modelLatencyMs: 0,
    tasksPerWorker: 2,
    redis: { url: REDIS_URL, prefix, workers: 0 },
  }).finally(() => removeKeys(prefix));
  const tasksLoad = loadAverage();
  const tasks = await measureTasks(2);
  const rows: BenchRow[] = [
    idleRow("SQLite queue", sqlite, sqliteLoad),
    idleRow("REDIS_URL set", redis, redisLoad),
  ];
  tasks.added.forEach((added, index) => {
    rows.push({
      benchmark: BENCHMARK,
      case: `RSS added while fix ${index + 1} runs in serve on SQLite (peak over idle ${tasks.idle.toFixed(0)} MiB${index === 0 ? ", includes the modules a task loads first" : ""}; load ${tasksLoad})`,
      value: roundTo(added, 1),
      unit: "MiB",
      target: targetText(TASK_TARGET_MB),
      targetMet: added <= toMiB(TASK_TARGET_MB),
    });
  });
  return rows;
};
