import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EXIT_CODES } from "../../../src/doors/cli/cli-io.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { REDIS_URL, removeKeys } from "../../queue/bullmq/redis-test-helpers.js";
import { sendSignedWebhook } from "../../support/github-stand-in/send-signed-webhook.js";
import {
  startGitHubStandIn,
  userOf,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { runCli, waitFor } from "../support/run-cli.js";
import {
  findLogRecords,
  readMetric,
  startAppProcess,
  stopWithSigterm,
  type AppProcess,
} from "./app-processes.js";
import {
  fixSteps,
  INSTALLATION_ID,
  issueCommentPayload,
  OWNER,
  privateKey,
  PROJECT_FILES,
  REPO,
  script,
  WEBHOOK_SECRET,
} from "./app-fixture.js";

const COMPLETED = 'agentforge_task_outcomes_total{outcome="completed"}';

/**
 * The App split across processes on a real Redis: `agentforge serve` only takes webhooks in and
 * enqueues; two `agentforge worker` processes, each with its own data directory, run the tasks.
 * All three share one random AGENTFORGE_QUEUE_PREFIX, so this run sees no other run's keys.
 */
describe("agentforge serve and two workers on Redis, against a GitHub stand-in", () => {
  const prefix = `agentforge-e2e-${randomUUID().slice(0, 8)}`;
  let github: GitHubStandIn;
  let model: MockModelServer;
  let redis: Redis;
  let root: string;
  let serve: AppProcess;
  let workers: AppProcess[] = [];
  /** Everything that started, for the clean-up even when start-up failed halfway. */
  const started: AppProcess[] = [];
  const timings: Record<string, number> = {};

  const env = (name: string): NodeJS.ProcessEnv => {
    const dataDir = path.join(root, name);
    mkdirSync(dataDir, { recursive: true });
    return {
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET,
      PORT: "0",
      HOST: "127.0.0.1",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      // info: the "task enqueued" and "task finished" records say which process did what.
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: dataDir,
      AGENTFORGE_QUEUE_LEASE_MS: "15000",
      REDIS_URL,
      AGENTFORGE_QUEUE_PREFIX: prefix,
      // A limit far from reach, so the budget counters are kept in Redis under the prefix too.
      AGENTFORGE_BUDGET_TOKENS_PER_DAY: "100000000",
      NODE_ENV: "test",
    };
  };

  const repository = () => github.repository(OWNER, REPO);
  const progressOf = (issue: number) =>
    repository().comments.filter((comment) => comment.issueNumber === issue && comment.user.type === "Bot");

  async function deliver(issue: number, commentId: number, body: string, deliveryId: string) {
    const payload = issueCommentPayload({
      issueNumber: issue,
      commentId,
      body,
      login: "alice",
      userId: userOf("alice").id,
    });
    return sendSignedWebhook({
      url: `${serve.url}/api/github/webhooks`,
      secret: WEBHOOK_SECRET,
      event: "issue_comment",
      deliveryId,
      payload,
    });
  }

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "agentforge-redis-split-"));
    redis = new Redis(REDIS_URL);
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }],
      permissions: { alice: "write" },
    });
    model = await startMockModelServer({ script: script(fixSteps()) });
    const startedAt = Date.now();
    const starting = [
      startAppProcess("serve", "serve", env("serve")),
      startAppProcess("worker", "worker-a", env("worker-a")),
      startAppProcess("worker", "worker-b", env("worker-b")),
    ].map(async (promise) => {
      const running = await promise;
      started.push(running);
      return running;
    });
    [serve, ...workers] = (await Promise.allSettled(starting)).map((result) => {
      if (result.status === "rejected") throw result.reason;
      return result.value;
    }) as [AppProcess, ...AppProcess[]];
    timings["startThreeProcesses"] = Date.now() - startedAt;
  }, 45_000);

  afterAll(async () => {
    if (process.env.AGENTFORGE_E2E_DEBUG)
      for (const running of started)
        process.stdout.write(
          `--- ${running.name}\n${running.cli.output().stdout}\n${running.cli.output().stderr}\n`,
        );
    for (const running of started) running.cli.killHard();
    await Promise.all(started.map((running) => running.cli.exited));
    await model?.close();
    await github?.close();
    await redis?.quit();
    timings["removedKeys"] = await removeKeys(prefix);
    rmSync(root, { recursive: true, force: true });
    process.stdout.write(`redis-split e2e timings (ms): ${JSON.stringify(timings)}\n`);
  });

  it("refuses to start a worker whose AGENTFORGE_QUEUE_PREFIX is unsafe for Redis keys", async () => {
    const outcome = await runCli(["worker"], { ...env("refused"), AGENTFORGE_QUEUE_PREFIX: "team:*" });
    expect(outcome.code).toBe(EXIT_CODES.usage);
    expect(outcome.stderr).toContain("agentforge worker: AGENTFORGE_QUEUE_PREFIX: expected 1 to 64");
    expect(outcome.stderr).toContain('"team:*"');
    expect(outcome.stdout).not.toContain("worker started");
  }, 20_000);

  it("serve only enqueues; one worker runs the task to a pushed branch, a PR and the progress comment", async () => {
    const listening = findLogRecords(serve, "AgentForge is listening");
    expect(listening).toEqual([
      expect.objectContaining({ mode: "serve", workers: false, queue: "redis", redisPrefix: prefix }),
    ]);
    for (const worker of workers)
      expect(findLogRecords(worker, "AgentForge worker is running")).toEqual([
        expect.objectContaining({ mode: "worker", workers: true, queue: "redis", redisPrefix: prefix }),
      ]);

    const issue = github.addIssue(OWNER, REPO, {
      title: "sum returns the wrong value",
      body: "sum(2, 3) gives -1.",
      author: "alice",
    });
    const body = "@agentforge fix this";
    const commentId = github.addComment(OWNER, REPO, issue, body, "alice");
    const startedAt = Date.now();
    const response = await deliver(issue, commentId, body, `${prefix}-delivery-1`);
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    timings["webhookAck"] = Math.round(response.elapsedMs);
    await waitFor(
      () =>
        repository().pulls.size === 1 &&
        progressOf(issue).some((comment) => /Opened #\d+/.test(comment.body)),
      "the pull request and the final progress comment",
      40_000,
    );
    timings["webhookToPullRequest"] = Date.now() - startedAt;
    // The worker logs the end after its last GitHub call.
    await waitFor(
      () => workers.some((worker) => findLogRecords(worker, "task finished").length > 0),
      "a worker to log the finished task",
      5_000,
    );

    // Which process did what: serve enqueued the task, exactly one worker finished it.
    const enqueued = findLogRecords(serve, "task enqueued");
    expect(enqueued).toHaveLength(1);
    const taskId = enqueued[0]!.taskId!;
    expect(enqueued[0]!.pid).toBe(serve.pid);
    expect(findLogRecords(serve, "task finished")).toEqual([]);
    const finishedBy = workers.filter((worker) => findLogRecords(worker, "task finished").length > 0);
    expect(finishedBy).toHaveLength(1);
    const runner = finishedBy[0]!;
    const idle = workers.find((worker) => worker !== runner)!;
    expect(findLogRecords(runner, "task finished")).toEqual([
      expect.objectContaining({ taskId, pid: runner.pid, status: "pull-request-opened" }),
    ]);
    expect(runner.pid).not.toBe(serve.pid);
    expect(await readMetric(serve.url, COMPLETED)).toBe(0);
    expect(await readMetric(runner.url, COMPLETED)).toBe(1);
    expect(await readMetric(idle.url, COMPLETED)).toBe(0);
    // The queue's counts live in Redis: serve reads the worker's completion through them.
    expect(await readMetric(serve.url, 'agentforge_queue_tasks{state="completed"}')).toBe(1);
    expect(
      await readMetric(
        serve.url,
        'agentforge_webhook_deliveries_total{event="issue_comment.created",result="accepted"}',
      ),
    ).toBe(1);

    // What GitHub saw: the 👀 reaction, one progress comment edited to its end, a PR with the fix.
    expect(repository().reactions).toContainEqual({
      target: `issues/comments/${commentId}`,
      content: "eyes",
    });
    const progress = progressOf(issue);
    expect(progress).toHaveLength(1);
    expect(progress[0]!.history[0]).toContain("Working on it");
    const pull = [...repository().pulls.values()][0]!;
    expect(pull.head).toBe(`agentforge/issue-${issue}`);
    expect(pull.body).toContain(`Fixes #${issue}`);
    expect(progress[0]!.body).toContain(`Opened #${pull.number}`);
    const sha = github.branchSha(OWNER, REPO, pull.head)!;
    expect(
      execFileSync("git", ["show", `${sha}:sum.js`], { cwd: repository().bareDir, encoding: "utf8" }),
    ).toContain("return a + b;");

    // Every key of this run is under its prefix: the task, and the budget the worker charged.
    expect(await redis.hget(`${prefix}:tasks:gate:t:${taskId}`, "state")).toBe("completed");
    expect(await redis.exists(`agentforge:tasks:gate:t:${taskId}`)).toBe(0);
    const usageKeys = await redis.keys(`${prefix}:budget:usage:${INSTALLATION_ID}:*`);
    expect(usageKeys).toHaveLength(1);
    expect(Number(await redis.hget(usageKeys[0]!, "tokens"))).toBeGreaterThan(0);
  }, 50_000);

  it("a redelivery of the same delivery id gives no second task", async () => {
    const issue = 1;
    const modelRequestsBefore = model.requests.length;
    const githubRequestsBefore = github.requests.length;
    const commentsBefore = repository().comments.length;
    const redelivered = await deliver(
      issue,
      repository().comments[0]!.id,
      "@agentforge fix this",
      `${prefix}-delivery-1`,
    );
    expect(redelivered.status).toBeLessThan(300);
    await waitFor(
      () => findLogRecords(serve, "redelivered webhook ignored").length === 1,
      "serve to note the redelivery",
      5_000,
    );
    // Long enough for a worker to claim a task, were there one (they poll every 250 ms).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(findLogRecords(serve, "task enqueued")).toHaveLength(1);
    expect(await redis.keys(`${prefix}:tasks:gate:t:*`)).toHaveLength(1);
    expect(await readMetric(serve.url, 'agentforge_queue_tasks{state="queued"}')).toBe(0);
    expect(await readMetric(serve.url, 'agentforge_queue_tasks{state="running"}')).toBe(0);
    expect(model.requests.length).toBe(modelRequestsBefore);
    expect(repository().comments.length).toBe(commentsBefore);
    expect(github.requests.slice(githubRequestsBefore).filter((request) => request.method !== "GET")).toEqual(
      [],
    );
    for (const worker of workers)
      expect(findLogRecords(worker, "task finished").length).toBeLessThanOrEqual(1);
    expect(
      await readMetric(
        serve.url,
        'agentforge_webhook_deliveries_total{event="issue_comment.created",result="duplicate"}',
      ),
    ).toBe(1);
  }, 20_000);

  it("SIGTERM stops serve and both workers cleanly", async () => {
    const outcomes = await Promise.all(
      [serve, ...workers].map((running) => stopWithSigterm(running, 15_000)),
    );
    for (const [index, outcome] of outcomes.entries()) {
      const running = [serve, ...workers][index]!;
      expect({ name: running.name, code: outcome.code, signal: outcome.signal }).toEqual({
        name: running.name,
        code: 0,
        signal: null,
      });
      expect(outcome.stderr).toContain("SIGTERM received; no new work is taken");
      expect(outcome.stderr).not.toContain("received again");
      timings[`${running.name}Exit`] = outcome.elapsedMs;
    }
  }, 20_000);
});
