import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { EXIT_CODES } from "../../../src/doors/cli/cli-io.js";
import { readHandOver } from "../../../src/doors/github/jobs/hand-over.js";
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
  holdsTaskRecord,
  readMetric,
  readTaskTrace,
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
 * The model side of the run that moves between workers, after fixSteps() (the first task's): read,
 * edit, then a long wait. The worker running it is killed during the wait, so the delayed answer
 * goes nowhere; the worker that continues the run asks next and gets the last step.
 */
const HANDOFF_STEPS: unknown[] = [
  {
    type: "tool_calls",
    calls: [{ id: "call_handoff_read", name: "read_file", arguments: { path: "sum.js" } }],
  },
  {
    type: "tool_calls",
    calls: [
      {
        id: "call_handoff_edit",
        name: "edit_file",
        arguments: { path: "sum.js", old_string: "return a - b;", new_string: "return a + b;" },
      },
    ],
  },
  { type: "text", text: "This answer is never delivered.", delay_ms: 120_000 },
  { type: "text", text: "Fixed `sum` on the second worker: it subtracted instead of adding." },
];
const DELAYED_STEP = fixSteps().length + 2;
const FINAL_STEP = DELAYED_STEP + 1;

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
  /** The worker the handoff test kills. */
  let killed: AppProcess | undefined;
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
      // The shortest lease allowed, so a killed worker's task is free again soon.
      AGENTFORGE_QUEUE_LEASE_MS: "15000",
      // Every turn stores the run with the task, so another worker can continue it.
      AGENTFORGE_HANDOFF_INTERVAL_MS: "0",
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
    model = await startMockModelServer({ script: script([...fixSteps(), ...HANDOFF_STEPS]) });
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

  it("a worker killed mid-run: the other worker, on its own disk, continues the run from Redis", async () => {
    const issue = github.addIssue(OWNER, REPO, {
      title: "sum still subtracts",
      body: "sum(2, 3) gives -1 here too.",
      author: "alice",
    });
    const body = "@agentforge fix this";
    const commentId = github.addComment(OWNER, REPO, issue, body, "alice");
    const startedAt = Date.now();
    await deliver(issue, commentId, body, `${prefix}-delivery-handoff`);
    await waitFor(
      () => findLogRecords(serve, "task enqueued").length === 2,
      "serve to enqueue the task",
      5_000,
    );
    const taskId = findLogRecords(serve, "task enqueued")[1]!.taskId!;
    const taskKey = `${prefix}:tasks:gate:t:${taskId}`;

    // The run reads and edits sum.js, then waits on the model; by then its worker has stored it.
    await waitFor(
      () => model.requests.some((request) => request.stepIndex === DELAYED_STEP),
      "the run to reach the delayed model step",
      20_000,
    );
    let lastStored = "nothing";
    await waitFor(
      async () => {
        const stored = await redis.hget(taskKey, "handOver");
        if (stored === null) return false;
        const carried = readHandOver(JSON.parse(stored));
        lastStored = carried.success
          ? `a run with calls ${Object.keys(carried.value.run.checkpoint.completedToolCalls).join(", ")}`
          : carried.error;
        return (
          carried.success &&
          carried.value.run.checkpoint.completedToolCalls["call_handoff_edit"] !== undefined &&
          carried.value.changes.trackedPatchBase64 !== ""
        );
      },
      "the run with the edit to be stored with the task",
      10_000,
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)} (stored: ${lastStored})`);
    });
    // Killed in the middle of a GitHub write, a worker leaves its slot of Probot's clustered write
    // limiter taken in Redis for a minute (the throttle's job expiration), and every worker's
    // comment edits for the installation wait that long. The kill comes once the comment shows the
    // edit and GitHub has heard nothing for a second, so the test measures the handoff, not that.
    await waitFor(
      () =>
        progressOf(issue).some((comment) => comment.body.includes("edit_file")) &&
        Date.now() - (github.requests.at(-1)?.at ?? 0) > 1_000,
      "the progress comment to show the edit, and GitHub to be quiet",
      10_000,
    );
    const holders = workers.filter((worker) => holdsTaskRecord(worker, taskId));
    expect(holders).toHaveLength(1);
    const doomed = holders[0]!;
    const survivor = workers.find((worker) => worker !== doomed)!;
    const stored = readHandOver(JSON.parse((await redis.hget(taskKey, "handOver"))!));
    if (!stored.success) throw new Error(stored.error);
    expect(Buffer.from(stored.value.changes.trackedPatchBase64, "base64").toString("utf8")).toContain(
      "+  return a + b;",
    );
    // The comment is posted beside the checkout, so a run captured before its id was recorded
    // carries none; the survivor then finds the comment by its task marker (checked under (d)).
    const handedOverCommentId = stored.value.progressCommentId;
    expect([progressOf(issue)[0]!.id, null]).toContain(handedOverCommentId);
    timings["handoffWebhookToKill"] = Date.now() - startedAt;
    timings["commentIdHandedOver"] = handedOverCommentId === null ? 0 : 1;

    killed = doomed;
    const killedAt = Date.now();
    doomed.cli.killHard();
    const death = await doomed.cli.exited;
    expect(death.signal).toBe("SIGKILL");
    const deadRequest = model.requests.find((request) => request.stepIndex === DELAYED_STEP)!;

    await waitFor(
      () => findLogRecords(survivor, "task finished").some((record) => record.taskId === taskId),
      "the other worker to finish the task",
      50_000,
    ).catch(async (error: unknown) => {
      // Where it stopped: the task's state in Redis and the last calls to the model and GitHub.
      const { handOver: _run, payload: _payload, ...task } = await redis.hgetall(taskKey);
      const calls = {
        task,
        modelSteps: model.requests
          .filter((request) => request.receivedAt >= killedAt)
          .map((request) => request.stepIndex),
        github: github.requests.slice(-5).map((request) => `${request.method} ${request.path}`),
      };
      throw new Error(`${error instanceof Error ? error.message : String(error)}: ${JSON.stringify(calls)}`);
    });
    timings["killToFinished"] = Date.now() - killedAt;

    // (a) The run resumed: the first request after the kill already holds the edit's result, the
    // same one the dead worker sent, and got the step after the delayed one.
    const afterKill = model.requests.filter((request) => request.receivedAt >= killedAt);
    expect(afterKill.map((request) => request.stepIndex)).toEqual([FINAL_STEP]);
    const resumedMessages = afterKill[0]!.body!.messages;
    const deadMessages = deadRequest.body!.messages;
    const shape = (messages: typeof deadMessages) =>
      messages.map((message) => `${message.role}:${message.tool_call_id ?? ""}`);
    expect(shape(resumedMessages).slice(0, deadMessages.length)).toEqual(shape(deadMessages));
    const editResults = resumedMessages.filter(
      (message) => message.role === "tool" && message.tool_call_id === "call_handoff_edit",
    );
    expect(editResults).toHaveLength(1);
    const deadEditResult = deadMessages.find((message) => message.tool_call_id === "call_handoff_edit")!;
    expect(editResults[0]!.content).toEqual(deadEditResult.content);
    expect(resumedMessages.filter((message) => message.role === "user")).toEqual(
      deadMessages.filter((message) => message.role === "user"),
    );

    // (b) Nothing ran twice: the survivor's trace continues the same run and starts no tool call.
    expect(JSON.stringify(resumedMessages)).not.toContain("EDIT_NO_MATCH");
    const deadTrace = readTaskTrace(doomed, taskId);
    const survivorTrace = readTaskTrace(survivor, taskId);
    const started = (trace: typeof deadTrace) =>
      trace
        .filter((line) => line.event_type === "tool-call-start")
        .map((line) => line.attributes?.["tool_call.name"]);
    expect(started(deadTrace)).toEqual(["read_file", "edit_file"]);
    expect(started(survivorTrace)).toEqual([]);
    expect(survivorTrace[0]).toEqual(
      expect.objectContaining({ record: "header", run_id: stored.value.run.runId }),
    );
    expect(deadTrace[0]).toEqual(
      expect.objectContaining({ record: "header", run_id: stored.value.run.runId }),
    );
    expect(survivorTrace.filter((line) => line.event_type === "run-resumed")).toHaveLength(1);

    // (c) One pull request for the issue, whose branch has the fix once.
    expect(findLogRecords(survivor, "task finished")).toContainEqual(
      expect.objectContaining({ taskId, status: "pull-request-opened" }),
    );
    const pulls = [...repository().pulls.values()].filter(
      (pull) => pull.head === `agentforge/issue-${issue}`,
    );
    expect(pulls).toHaveLength(1);
    const sha = github.branchSha(OWNER, REPO, pulls[0]!.head)!;
    const pushed = execFileSync("git", ["show", `${sha}:sum.js`], {
      cwd: repository().bareDir,
      encoding: "utf8",
    });
    expect(pushed).toBe(PROJECT_FILES["sum.js"]!.replace("return a - b;", "return a + b;"));
    expect(findLogRecords(doomed, "task finished").map((record) => record.taskId)).not.toContain(taskId);
    expect(await redis.hget(taskKey, "state")).toBe("completed");
    expect(await redis.hget(taskKey, "attempts")).toBe("2");

    // (d) The dead worker's comment says it was interrupted; a new one carried the run to its end.
    const progress = progressOf(issue);
    expect(progress).toHaveLength(2);
    expect(progress[0]!.body).toContain(`<!-- agentforge-task: ${taskId} -->`);
    expect(progress[0]!.history[0]).toContain("Working on it");
    expect(progress[0]!.body).toContain("This run was interrupted");
    expect(progress[1]!.history[0]).toContain("Picking this up again");
    expect(progress[1]!.body).toContain(`Opened #${pulls[0]!.number}`);
  }, 80_000);

  it("SIGTERM stops serve and the workers still running cleanly", async () => {
    // The handoff test killed one worker; when it did not run, all three are still up.
    const stillRunning = [serve, ...workers].filter((candidate) => candidate !== killed);
    const outcomes = await Promise.all(stillRunning.map((candidate) => stopWithSigterm(candidate, 15_000)));
    for (const [index, outcome] of outcomes.entries()) {
      const running = stillRunning[index]!;
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
