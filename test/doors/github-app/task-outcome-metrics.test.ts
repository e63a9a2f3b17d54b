import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import type { TaskOutcome } from "../../../src/doors/github-app/task-types.js";
import { createMetrics } from "../../../src/observability/create-metrics.js";
import { handleHealthAndMetrics } from "../../../src/observability/handle-health-and-metrics.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

function request(number: number): GitHubRequest {
  return {
    deliveryId: `d-${number}`,
    eventName: "issue_comment.created",
    installationId: 1,
    owner: "o",
    repo: "r",
    number,
    isPullRequest: false,
    command: { kind: "fix" },
    trigger: "comment",
    requester: "octocat",
    commentId: 1,
    headSha: null,
    beforeSha: null,
    reviewComment: null,
    receivedAt: 0,
  };
}

describe("task outcomes on /metrics and /healthz", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    dir = await mkdtemp(join(tmpdir(), "agentforge-outcomes-"));
    queue = createSqliteTaskQueue({ filePath: join(dir, "q.sqlite"), decodePayload: decodeGitHubRequest });
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("counts a job that reported failure as failed, not completed", async () => {
    const outcomes: TaskOutcome[] = [
      { status: "failed", summary: "the run ended without a final answer" },
      { status: "pull-request-opened", summary: "opened #4" },
      { status: "failed", summary: "push rejected" },
    ];
    for (const [index] of outcomes.entries())
      await queue.enqueue({
        deliveryId: `d-${index}`,
        key: `o/r#${index + 1}`,
        installationId: 1,
        payload: request(index + 1),
      });
    const metrics = createMetrics({ queue });
    const controller = new AbortController();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      metrics,
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "installation-token" })),
      handler: (task) => Promise.resolve(outcomes[task.payload.number - 1]!),
    });
    // Every task is stored as finished by the queue (the handler returned), whatever its status.
    const deadline = Date.now() + 10_000;
    while ((await queue.stats()).completed < outcomes.length && Date.now() < deadline)
      await new Promise((next) => setTimeout(next, 10));
    controller.abort();
    await loop;
    expect((await queue.stats()).completed).toBe(outcomes.length);
    expect(metrics.countTasks()).toMatchObject({ completed: 1, failed: 2, refused: 0, cancelled: 0 });

    const server = createServer((incoming, response) => {
      void handleHealthAndMetrics(incoming, response, { metrics, queue });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const health = (await (await fetch(`${base}/healthz`)).json()) as { tasks: Record<string, number> };
      expect(health.tasks).toMatchObject({ completed: 1, failed: 2, refused: 0, cancelled: 0 });
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).toContain('agentforge_task_outcomes_total{outcome="completed"} 1');
      expect(text).toContain('agentforge_task_outcomes_total{outcome="failed"} 2');
      expect(text).toContain('agentforge_task_outcomes_total{outcome="refused"} 0');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
