import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runLimits } from "../../src/core/config/run-limits.js";
import { createAgentRunner } from "../../src/core/create-agent-runner.js";
import { createOpenAIModelClient } from "../../src/core/model/create-openai-model-client.js";
import { createBullmqTaskQueue } from "../../src/queue/bullmq/create-bullmq-task-queue.js";
import { createSqliteTaskQueue } from "../../src/queue/create-sqlite-task-queue.js";
import { runWorkerLoop } from "../../src/queue/run-worker-loop.js";
import type { TaskQueue } from "../../src/queue/task-queue.js";

export interface LatencyPayload {
  readonly index: number;
}

export type LatencyEngine =
  | { readonly kind: "sqlite"; readonly filePath: string }
  | {
      readonly kind: "redis";
      readonly url: string;
      readonly prefix: string;
      /** The engine's `claimBlockMs` for the workers (unset: the App's default, no waiting). */
      readonly claimBlockMs?: number;
    };

function decodePayload(value: unknown): LatencyPayload {
  if (typeof value === "object" && value !== null && "index" in value && typeof value.index === "number")
    return { index: value.index };
  throw new Error("not a bench payload");
}

/** The queue as the App opens it, but with a high global limit: the workers' concurrency is measured. */
export function openLatencyQueue(engine: LatencyEngine): TaskQueue<LatencyPayload> {
  const common = { decodePayload, globalConcurrency: 64 };
  return engine.kind === "sqlite"
    ? createSqliteTaskQueue({ ...common, filePath: engine.filePath })
    : createBullmqTaskQueue({
        ...common,
        connection: engine.url,
        prefix: engine.prefix,
        busyRetryMs: 20,
        ...(engine.claimBlockMs === undefined ? {} : { claimBlockMs: engine.claimBlockMs }),
      });
}

/** What a worker process says to the bench. */
export type LatencyWorkerMessage =
  /** Warmed (one task run) and idle: its RSS now. */
  | { readonly type: "ready"; readonly rssBytes: number }
  | { readonly type: "started" }
  /** Its loop stopped: its RSS when the loop started (warm and idle) and the peak since. */
  | { readonly type: "paused"; readonly startRssBytes: number; readonly peakRssBytes: number };

/** What the bench tells a worker process: run the loop on this queue, stop it, or exit. */
export type LatencyWorkerCommand =
  | { readonly type: "start"; readonly engine: LatencyEngine; readonly concurrency: number }
  | { readonly type: "pause" }
  | { readonly type: "exit" };

/**
 * One long-lived worker process: the App's worker loop, each task a real core run (three model
 * turns over HTTP: two read_file calls and an answer) on a small workspace. It runs one task
 * before saying it is ready, so the bench measures warm processes; between cases the bench
 * pauses its loop, so a paused process does not claim (or poll) at all. One process serves both
 * engines in turn (a queue per engine, opened at its first case), so the pool starts once.
 */
export async function serveLatencyWorker(
  modelUrl: string,
  send: (message: LatencyWorkerMessage) => void,
  commands: AsyncIterable<LatencyWorkerCommand>,
): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "agentforge-bench-latency-"));
  const workspace = path.join(root, "workspace");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.js"), "export const a = 1;\n".repeat(40));
  await writeFile(path.join(workspace, "b.js"), "export const b = 2;\n".repeat(40));
  const runner = createAgentRunner({
    model: createOpenAIModelClient({ model: "mock-model", baseURL: modelUrl, apiKey: "sk-bench-0000" }),
    dataDir: path.join(root, "data"),
    settings: { limits: runLimits({ maxTurns: 10 }), contextWindow: 128_000, configDigest: "bench" },
  });
  const runTask = async (index: number) => {
    const result = await runner.run({
      prompt: `Read a.js and b.js (task ${index}).`,
      workspaceRoot: workspace,
      mode: "build",
      approvalMode: "never",
      allowPrefixes: [],
    });
    if (result.exitReason !== "final_answer") throw new Error(`run ended with ${result.exitReason}`);
    return { turns: result.turns };
  };
  const queues = new Map<string, TaskQueue<LatencyPayload>>();
  const openQueue = async (engine: LatencyEngine) => {
    const name = JSON.stringify(engine);
    const opened = queues.get(name);
    if (opened !== undefined) return opened;
    const queue = openLatencyQueue(engine);
    queues.set(name, queue);
    await queue.stats();
    return queue;
  };
  let peakRssBytes = 0;
  let startRssBytes = 0;
  const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss())), 50);
  let loop: { readonly controller: AbortController; readonly done: Promise<unknown> } | null = null;
  try {
    await runTask(-1);
    send({ type: "ready", rssBytes: process.memoryUsage.rss() });
    for await (const command of commands) {
      if (command.type === "start" && loop === null) {
        const queue = await openQueue(command.engine);
        const controller = new AbortController();
        startRssBytes = process.memoryUsage.rss();
        peakRssBytes = startRssBytes;
        const done = runWorkerLoop(queue, (task) => runTask(task.payload.index), {
          concurrency: command.concurrency,
          signal: controller.signal,
          pollMs: 10,
        });
        loop = { controller, done };
        send({ type: "started" });
      } else if (command.type === "pause" && loop !== null) {
        loop.controller.abort();
        await loop.done;
        loop = null;
        send({ type: "paused", startRssBytes, peakRssBytes });
      } else if (command.type === "exit") break;
    }
  } finally {
    loop?.controller.abort();
    await loop?.done;
    clearInterval(sampler);
    for (const queue of queues.values()) await queue.close();
    await rm(root, { recursive: true, force: true });
  }
}
