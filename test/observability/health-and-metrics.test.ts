import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { LoopEvent } from "../../src/core/loop/loop-events.js";
import { errorResult } from "../../src/core/tools/tool-result.js";
import { createMetrics, type Metrics } from "../../src/observability/create-metrics.js";
import { handleHealthAndMetrics } from "../../src/observability/handle-health-and-metrics.js";
import { createSqliteTaskQueue } from "../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../src/queue/task-queue.js";
import {
  decodeTestPayload,
  makeTempDir,
  removeDir,
  task,
  type TestPayload,
} from "../queue/queue-test-helpers.js";

function refusedEnd(
  name: string,
  errorType: "PERMISSION_DENIED" | "TOOL_NOT_FOUND" | "COMMAND_BLOCKED",
): LoopEvent {
  const result = errorResult(errorType, {
    message: "refused by policy",
    recovery_hint: "ask for approval",
    next_actions: [],
    status: "refused",
  });
  return { type: "tool-call-end", turn: 1, callId: `c-${name}`, name, result, durationMs: 1 };
}

describe("health and metrics endpoints", () => {
  let dir: string;
  let queue: TaskQueue<TestPayload>;
  let metrics: Metrics;
  let server: Server;
  let base: string;

  beforeEach(async () => {
    dir = await makeTempDir();
    queue = createSqliteTaskQueue({ filePath: join(dir, "queue.sqlite"), decodePayload: decodeTestPayload });
    metrics = createMetrics({ queue });
    server = createServer((request, response) => {
      void handleHealthAndMetrics(request, response, { metrics, queue }).then((handled) => {
        if (!handled) response.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await queue.close();
    await removeDir(dir);
  });

  it("answers /healthz with the queue's counts", async () => {
    await queue.enqueue(task("o/r#1", "a"));
    await queue.enqueue(task("o/r#2", "b"));
    await queue.claim("w");
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      status: "ok",
      tasks: {
        completed: 0,
        failed: 0,
        refused: 0,
        retried: 0,
        cancelled: 0,
        superseded: 0,
        "lease-lost": 0,
      },
      queue: { queued: 1, running: 1, completed: 0, failed: 0, cancelled: 0, superseded: 0 },
    });
  });

  it("reports 503 when the queue cannot be read", async () => {
    await queue.close();
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: "error" });
  });

  it("serves what was recorded in the Prometheus text format", async () => {
    await queue.enqueue(task("o/r#1", "a"));
    metrics.recordTask("completed", 90_000);
    metrics.recordTask("failed", 2_000);
    metrics.recordWebhook("issue_comment", "accepted");
    metrics.recordWebhook("issue_comment", "accepted");
    metrics.recordWebhook("issue_comment", "duplicate");
    const usage = { promptTokens: 1200, completionTokens: 300, totalTokens: 1500 };
    metrics.observeLoopEvent({
      type: "model-call-end",
      turn: 1,
      model: "m",
      usage,
      costUsd: 0.0125,
      durationMs: 10,
      toolCalls: [],
      finishReason: "stop",
      text: "ok",
    });
    metrics.observeLoopEvent(refusedEnd("run_command", "COMMAND_BLOCKED"));
    metrics.observeLoopEvent(refusedEnd("run_command", "COMMAND_BLOCKED"));
    metrics.observeLoopEvent(refusedEnd("made up tool!", "TOOL_NOT_FOUND"));
    metrics.observeLoopEvent({ type: "turn-start", turn: 2 });

    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(metrics.registry.contentType);
    const text = await response.text();
    const lines = text.split("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        'agentforge_queue_tasks{state="queued"} 1',
        'agentforge_queue_tasks{state="running"} 0',
        'agentforge_task_outcomes_total{outcome="completed"} 1',
        'agentforge_task_outcomes_total{outcome="failed"} 1',
        'agentforge_task_duration_seconds_bucket{le="60",outcome="completed"} 0',
        'agentforge_task_duration_seconds_bucket{le="120",outcome="completed"} 1',
        'agentforge_task_duration_seconds_sum{outcome="completed"} 90',
        'agentforge_model_tokens_total{kind="prompt"} 1200',
        'agentforge_model_tokens_total{kind="completion"} 300',
        "agentforge_model_cost_usd_total 0.0125",
        'agentforge_tool_refusals_total{tool="run_command",reason="COMMAND_BLOCKED"} 2',
        'agentforge_tool_refusals_total{tool="unknown",reason="TOOL_NOT_FOUND"} 1',
        'agentforge_webhook_deliveries_total{event="issue_comment",result="accepted"} 2',
        'agentforge_webhook_deliveries_total{event="issue_comment",result="duplicate"} 1',
        "# TYPE agentforge_task_duration_seconds histogram",
      ]),
    );
    expect(text).not.toContain("made up tool");
  });

  it("leaves other paths to the caller and refuses other methods", async () => {
    expect((await fetch(`${base}/other`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: "POST" })).status).toBe(405);
  });
});
