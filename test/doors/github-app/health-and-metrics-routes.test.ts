import { describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Probot } from "probot";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import { createHealthServer } from "../../../src/doors/github-app/create-health-server.js";
import { createWebhookServer } from "../../../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { createMetrics } from "../../../src/observability/create-metrics.js";
import { openIntakeJournal } from "../../../src/queue/open-intake-journal.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import { createRecordingLogger, privateKey, TestOctokit } from "./github-app-test-helpers.js";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("health and metrics routes", () => {
  it.each(["webhook server", "worker health server"])(
    "the %s answers /healthz and /metrics",
    async (kind) => {
      const dir = await mkdtemp(join(tmpdir(), "agentforge-health-"));
      const queue = createSqliteTaskQueue({
        filePath: join(dir, "q.sqlite"),
        decodePayload: decodeGitHubRequest,
      });
      let isClosed = false;
      const journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
      const metrics = createMetrics({ queue });
      metrics.recordTask("completed", 1_500);
      const probot = new Probot({
        appId: 1,
        privateKey,
        Octokit: TestOctokit,
        log: pino({ level: "silent" }),
      });
      const server =
        kind === "webhook server"
          ? await createWebhookServer({
              probot,
              app: createAgentForgeApp({
                queue,
                journal,
              }),
              secret: "s",
              healthAndMetrics: { metrics, queue },
            })
          : createHealthServer({ metrics, queue, logger: createRecordingLogger() });
      try {
        const url = await listen(server);
        const health = await fetch(`${url}/healthz`);
        expect(health.status).toBe(200);
        expect(await health.json()).toMatchObject({ status: "ok", queue: { queued: 0, running: 0 } });
        const scrape = await fetch(`${url}/metrics`);
        expect(scrape.headers.get("content-type")).toContain("text/plain");
        const text = await scrape.text();
        expect(text).toMatch(/agentforge_task_outcomes_total\{outcome="completed"\} 1/);
        expect(text).toMatch(/agentforge_queue_tasks\{state="queued"\} 0/);
        expect((await fetch(`${url}/nothing-here`)).status).toBe(404);
        // Health fails when the queue cannot be read, so the instance leaves rotation.
        await queue.close();
        isClosed = true;
        expect((await fetch(`${url}/healthz`)).status).toBe(503);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        if (!isClosed) await queue.close();
        await journal.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
