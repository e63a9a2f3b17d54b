import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { Probot } from "probot";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import {
  createWebhookServer,
  DEFAULT_WEBHOOK_PATH,
} from "../../../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { createMetrics } from "../../../src/observability/create-metrics.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import { openIntakeJournal, type IntakeJournal } from "../../../src/queue/open-intake-journal.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import type { GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { privateKey, TestOctokit } from "./github-app-test-helpers.js";

const SECRET = "the-right-secret";

describe("refused webhook deliveries", () => {
  let dir: string;
  let server: Server;
  let url: string;
  let queue: TaskQueue<GitHubRequest>;
  let journal: IntakeJournal;
  let logLines: { msg: string; reason?: string; delivery?: string }[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentforge-refusals-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
    journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
    logLines = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean))
          logLines.push(JSON.parse(line));
        callback();
      },
    });
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: SECRET,
      Octokit: TestOctokit,
      log: pino(stream),
    });
    const metrics = createMetrics({ queue });
    server = await createWebhookServer({
      probot,
      app: createAgentForgeApp({ queue, journal }),
      secret: SECRET,
      healthAndMetrics: { metrics, queue },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await queue.close();
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  function post(body: string, headers: Record<string, string>): Promise<Response> {
    return fetch(`${url}${DEFAULT_WEBHOOK_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment", ...headers },
      body,
    });
  }

  it("logs a wrong secret with the variable to fix and counts each refusal by reason on /metrics", async () => {
    const body = JSON.stringify({ action: "created" });
    const wrong = `sha256=${createHmac("sha256", "an-old-secret").update(body).digest("hex")}`;
    expect((await post(body, { "x-github-delivery": "d-wrong", "x-hub-signature-256": wrong })).status).toBe(
      401,
    );
    expect(
      (await post(body, { "x-github-delivery": "d-wrong-2", "x-hub-signature-256": wrong })).status,
    ).toBe(401);
    expect((await post(body, { "x-github-delivery": "d-unsigned" })).status).toBe(400);

    const refusal = logLines.find((line) => line.delivery === "d-wrong");
    expect(refusal).toMatchObject({ reason: "bad-signature" });
    expect(refusal?.msg).toBe(
      "webhook refused (401 bad-signature): the signature does not match WEBHOOK_SECRET: set WEBHOOK_SECRET to the webhook secret in the GitHub App's settings (or change the App's secret to match)",
    );
    expect(logLines.find((line) => line.delivery === "d-unsigned")?.msg).toContain(
      "set the same value in WEBHOOK_SECRET",
    );
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toMatch(/agentforge_webhook_refused_total\{reason="bad-signature"\} 2/);
    expect(text).toMatch(/agentforge_webhook_refused_total\{reason="missing-signature"\} 1/);
    expect(journal.stats().records).toBe(0);
  });
});
