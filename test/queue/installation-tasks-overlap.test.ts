import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { runLimits } from "../../src/core/config/run-limits.js";
import { createAgentRunner } from "../../src/core/create-agent-runner.js";
import { createOpenAIModelClient } from "../../src/core/model/create-openai-model-client.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../src/mock-model/start-mock-model-server.js";
import { parseMockScript } from "../../src/mock-model/mock-script.js";
import { createBullmqTaskQueue } from "../../src/queue/bullmq/create-bullmq-task-queue.js";
import { createSqliteTaskQueue } from "../../src/queue/create-sqlite-task-queue.js";
import { runWorkerLoop } from "../../src/queue/run-worker-loop.js";
import type { TaskQueue } from "../../src/queue/task-queue.js";
import { deferred } from "../support/deferred.js";
import { decodeTestPayload, type TestPayload } from "./queue-test-helpers.js";
import { REDIS_URL, removeKeys } from "./bullmq/redis-test-helpers.js";

const ISSUES = 4;

const script = parseMockScript({
  steps: [
    { type: "tool_calls", calls: [{ name: "read_file", arguments: { path: "a.js" } }] },
    { type: "text", text: "Read it; nothing to change." },
  ],
});

async function isRedisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    // Unreachable is the answer, not an error: the Redis case is skipped and says so.
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Tasks of one installation on different issues overlap with the queue's default limits (only a
 * global one is set): real agent runs against a real HTTP model server that holds every request
 * until one from each issue is in flight. Were the installation's tasks serialised, that moment
 * would never come and the runs would not finish. A second request on issue 1 still waits for
 * the first: a key never runs twice at once.
 */
describe("tasks of one installation on different issues", () => {
  let root = "";
  let workspace = "";
  let model: MockModelServer;
  // A fresh gate per case: it opens once a request from each issue is in flight.
  let gate = { inFlight: 0, peak: 0, open: deferred() };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-overlap-"));
    workspace = path.join(root, "workspace");
    await mkdir(workspace);
    await writeFile(path.join(workspace, "a.js"), "export const a = 1;\n");
    if (!script.success) throw new Error(script.error);
    model = await startMockModelServer({
      script: script.value,
      steps: "turn",
      beforeAnswer: async () => {
        const current = gate;
        current.inFlight += 1;
        current.peak = Math.max(current.peak, current.inFlight);
        if (current.inFlight >= ISSUES) current.open.resolve();
        await current.open.promise;
        current.inFlight -= 1;
      },
    });
  });

  afterAll(async () => {
    await model.close();
    await rm(root, { recursive: true, force: true });
  });

  async function runAll(queue: TaskQueue<TestPayload>, dataDir: string): Promise<number> {
    gate = { inFlight: 0, peak: 0, open: deferred() };
    const runner = createAgentRunner({
      model: createOpenAIModelClient({ model: "mock-model", baseURL: model.url, apiKey: "sk-test-0000" }),
      dataDir,
      settings: { limits: runLimits({ maxTurns: 5 }), contextWindow: 128_000, configDigest: "overlap" },
    });
    for (let issue = 1; issue <= ISSUES; issue += 1)
      await queue.enqueue({
        deliveryId: `d-${issue}`,
        key: `octo/demo#${issue}`,
        installationId: 7,
        payload: { label: `issue-${issue}` },
      });
    const runningPerKey = new Map<string, number>();
    let peakPerKey = 0;
    let finished = 0;
    const allFinished = deferred();
    const controller = new AbortController();
    const loop = runWorkerLoop(
      queue,
      async (task) => {
        runningPerKey.set(task.key, (runningPerKey.get(task.key) ?? 0) + 1);
        peakPerKey = Math.max(peakPerKey, runningPerKey.get(task.key) ?? 0);
        try {
          // A second request on issue 1 while its first runs: it must wait, not run beside it.
          if (task.payload.label === "issue-1")
            await queue.enqueue({
              deliveryId: "d-again",
              key: "octo/demo#1",
              installationId: 7,
              payload: { label: "issue-1-again" },
            });
          const result = await runner.run({
            prompt: `Read a.js (${task.payload.label}).`,
            workspaceRoot: workspace,
            mode: "build",
            approvalMode: "never",
            allowPrefixes: [],
          });
          if (result.exitReason !== "final_answer") throw new Error(`run ended with ${result.exitReason}`);
          return { label: task.payload.label };
        } finally {
          runningPerKey.set(task.key, (runningPerKey.get(task.key) ?? 1) - 1);
          finished += 1;
          if (finished === ISSUES + 1) allFinished.resolve();
        }
      },
      { concurrency: 8, signal: controller.signal, pollMs: 10 },
    );
    await allFinished.promise;
    controller.abort();
    const summary = await loop;
    expect(summary).toEqual({ claimed: ISSUES + 1, completed: ISSUES + 1, failed: 0 });
    return peakPerKey;
  }

  it("overlap on the embedded queue, one at a time per issue", async () => {
    const queue = createSqliteTaskQueue({
      filePath: path.join(root, "queue.sqlite"),
      decodePayload: decodeTestPayload,
      globalConcurrency: 8,
    });
    try {
      expect(await runAll(queue, path.join(root, "data-sqlite"))).toBe(1);
      expect(gate.peak).toBe(ISSUES);
    } finally {
      await queue.close();
    }
  }, 60_000);

  it("overlap on the Redis queue, one at a time per issue", async () => {
    if (!(await isRedisReachable())) {
      process.stdout.write(`skipped: no Redis answers at ${REDIS_URL}\n`);
      return;
    }
    const prefix = `agentforge-test-${randomUUID()}`;
    const queue = createBullmqTaskQueue({
      connection: REDIS_URL,
      prefix,
      decodePayload: decodeTestPayload,
      globalConcurrency: 8,
      busyRetryMs: 20,
    });
    try {
      expect(await runAll(queue, path.join(root, "data-redis"))).toBe(1);
      expect(gate.peak).toBe(ISSUES);
    } finally {
      await queue.close();
      await removeKeys(prefix);
    }
  }, 60_000);
});
