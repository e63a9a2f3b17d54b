import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { pino } from "pino";
import { Probot } from "probot";
import type { LoopEvent } from "../../../src/core/loop/loop-events.js";
import { createMetrics, type Metrics } from "../../../src/observability/create-metrics.js";
import { openIntakeJournal, type IntakeJournal } from "../../../src/queue/open-intake-journal.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import {
  createInstallationBudgets,
  type InstallationBudgets,
} from "../../../src/doors/github-app/budgets/create-installation-budgets.js";
import { createSqliteBudgetStore } from "../../../src/doors/github-app/budgets/create-sqlite-budget-store.js";
import type { BudgetStore } from "../../../src/doors/github-app/budgets/budget-store.js";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import type { TaskHandler } from "../../../src/doors/github-app/task-types.js";
import { deferred } from "../../support/deferred.js";
import {
  API,
  createRecordingLogger,
  examplePayload,
  INSTALLATION_ID,
  mockConfig,
  mockInstallationToken,
  mockPermission,
  privateKey,
  TestOctokit,
} from "./github-app-test-helpers.js";

const OWNER = "Codertocat";
const REPO = "Hello-World";

function fixComment() {
  const payload = examplePayload("issue_comment", "created");
  payload["comment"].body = "@agentforge fix the parser";
  return payload;
}

function modelCallEnd(promptTokens: number, completionTokens: number, costUsd: number): LoopEvent {
  return {
    type: "model-call-end",
    turn: 1,
    model: "scripted",
    usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    costUsd,
    durationMs: 5,
    toolCalls: [],
    finishReason: "stop",
    text: "done",
  };
}

describe("budgets and metrics in the App", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  let store: BudgetStore;
  let budgets: InstallationBudgets;
  let metrics: Metrics;
  let probot: Probot;
  let journal: IntakeJournal;
  const logger = createRecordingLogger();

  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-budget-wiring-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
    store = createSqliteBudgetStore(join(dir, "budgets.sqlite"));
    budgets = createInstallationBudgets({ store, limits: { tokensPerDay: 1_000, costUsdPerDay: 5 } });
    metrics = createMetrics({ queue });
    probot = new Probot({ appId: 123, privateKey, Octokit: TestOctokit, log: pino({ level: "silent" }) });
    journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
    await probot.load(
      createAgentForgeApp({ queue, journal, logger, budgets, metrics, acknowledge: "await" }),
    );
  });

  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await journal.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a command with the budget comment, and enqueues nothing, when the daily tokens are spent", async () => {
    await budgets.record(INSTALLATION_ID, { tokens: 1_200, costUsd: 0.5 });
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        return true;
      })
      .reply(201, { id: 7 });
    await probot.receive({ id: "d-spent", name: "issue_comment", payload: fixComment() as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("daily token budget of this installation is spent");
    expect(comments[0]!.body).toContain("1,200 of 1,000 tokens");
    // Resets at the next midnight UTC, stated as a time.
    const midnight = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000).toISOString();
    expect(comments[0]!.body).toContain(`It resets at ${midnight}`);
    const stats = await queue.stats();
    expect(stats.queued + stats.running).toBe(0);
    // A redelivery does not comment twice (no second nock interceptor is set up).
    await probot.receive({ id: "d-spent", name: "issue_comment", payload: fixComment() as never });
    expect(comments).toHaveLength(1);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(
      /agentforge_webhook_deliveries_total\{event="issue_comment.created",result="refused"\} 1/,
    );
  });

  it("enqueues while the cost budget is not spent, and counts the delivery as accepted", async () => {
    await budgets.record(INSTALLATION_ID, { tokens: 10, costUsd: 4.99 });
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null);
    scope.post(`/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`).reply(201, {});
    await probot.receive({ id: "d-ok", name: "issue_comment", payload: fixComment() as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await queue.stats()).toMatchObject({ queued: 1 });
    expect(await metrics.registry.metrics()).toMatch(
      /agentforge_webhook_deliveries_total\{event="issue_comment.created",result="accepted"\} 1/,
    );
  });

  async function enqueueFix(deliveryId: string): Promise<void> {
    const payload = fixComment();
    await queue.enqueue({
      deliveryId,
      key: "codertocat/hello-world#1",
      installationId: INSTALLATION_ID,
      payload: {
        deliveryId,
        eventName: "issue_comment.created",
        installationId: INSTALLATION_ID,
        owner: OWNER,
        repo: REPO,
        number: payload["issue"].number as number,
        isPullRequest: false,
        command: { kind: "fix" },
        trigger: "comment",
        requester: "Codertocat",
        commentId: 1,
        headSha: null,
        beforeSha: null,
        reviewComment: null,
        receivedAt: 0,
      },
    });
  }

  /**
   * Runs the workers until `decided` (the task was claimed and its fate chosen), then stops them the
   * way the server does: a stop waits for the running task, so its outcome is stored on return.
   */
  async function runWorkersUntil(handler: TaskHandler, decided: Promise<void>): Promise<void> {
    const controller = new AbortController();
    const done = runGitHubTaskWorkers({
      queue,
      handler,
      getInstallationOctokit: (id) => probot.auth(id),
      concurrency: 1,
      signal: controller.signal,
      redact: (text) => text,
      logger,
      budgets,
      metrics,
      pollMs: 10,
    });
    await decided;
    controller.abort();
    await done;
  }

  it("checks again when a worker claims: a budget spent since intake gets the comment, not a run", async () => {
    await enqueueFix("d-claim");
    await budgets.record(INSTALLATION_ID, { tokens: 0, costUsd: 5.25 });
    const comments: { body: string }[] = [];
    // The worker either comments (budget spent) or runs the handler: either way it has decided.
    const decided = deferred();
    const scope = nock(API);
    mockInstallationToken(scope);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        decided.resolve();
        return true;
      })
      .reply(201, { id: 8 });
    let handlerCalls = 0;
    await runWorkersUntil(async () => {
      handlerCalls += 1;
      decided.resolve();
      return { status: "no-change", summary: "" };
    }, decided.promise);
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(handlerCalls).toBe(0);
    expect(comments[0]!.body).toContain("daily cost budget of this installation is spent: $5.25 of $5.00");
    const stats = await queue.stats();
    expect(stats).toMatchObject({ completed: 1, queued: 0, running: 0 });
    // The queue finished the task, but nothing was done: operators see it as refused.
    expect(metrics.countTasks()).toMatchObject({ completed: 0, refused: 1 });
  });

  it("charges what a run spent, even when it fails, and records outcome, duration, tokens and refusals", async () => {
    await enqueueFix("d-charge");
    const scope = nock(API).persist();
    mockInstallationToken(scope);
    scope.post(`/repos/${OWNER}/${REPO}/issues/1/comments`).reply(201, { id: 9 });
    scope.patch(`/repos/${OWNER}/${REPO}/issues/comments/9`).reply(200, { id: 9 });
    const failed = deferred();
    await runWorkersUntil(async (_task, context) => {
      failed.resolve();
      context.onLoopEvent?.(modelCallEnd(300, 20, 0.02));
      context.onLoopEvent?.({
        type: "tool-call-end",
        step: 1,
        callId: "c1",
        name: "run_command",
        result: { status: "refused", error: { error_type: "COMMAND_BLOCKED" } },
      } as unknown as LoopEvent);
      context.onLoopEvent?.(modelCallEnd(400, 30, 0.03));
      throw new Error("the checkout failed");
    }, failed.promise);
    scope.persist(false);
    expect(await budgets.usage(INSTALLATION_ID)).toEqual({ tokens: 750, costUsd: expect.closeTo(0.05, 6) });
    // The slot was freed: another task may start.
    expect(await store.countRunningTasks(INSTALLATION_ID, Date.now())).toBe(0);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/agentforge_task_outcomes_total\{outcome="failed"\} 1/);
    expect(text).toMatch(/agentforge_task_duration_seconds_count\{outcome="failed"\} 1/);
    expect(text).toMatch(/agentforge_model_tokens_total\{kind="prompt"\} 700/);
    expect(text).toMatch(/agentforge_model_tokens_total\{kind="completion"\} 50/);
    expect(text).toMatch(/agentforge_tool_refusals_total\{tool="run_command",reason="COMMAND_BLOCKED"\} 1/);
    expect(text).toMatch(/agentforge_queue_tasks\{state="failed"\} 1/);
  });
});
