import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import type { AgentRunner } from "../../../src/core/agent-run.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { createGitHubTaskHandler } from "../../../src/doors/github-app/handle-github-task.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import { renderTaskCommentMarker } from "../../../src/doors/github-app/task-comment-marker.js";
import type { RepositoryCache } from "../../../src/doors/github/workspace/create-repository-cache.js";
import { openJobRecordStore } from "../../../src/doors/github/jobs/job-record-store.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { waitUntil } from "../../support/wait-until.js";
import { createManualClock } from "../../queue/queue-test-helpers.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

const fix: GitHubRequest = {
  deliveryId: "d-7",
  eventName: "issue_comment.created",
  installationId: 1,
  owner: "o",
  repo: "r",
  number: 7,
  isPullRequest: false,
  command: { kind: "fix" },
  trigger: "comment",
  requester: "octocat",
  commentId: 40,
  headSha: null,
  beforeSha: null,
  reviewComment: null,
  receivedAt: 0,
};

/** The runner's redaction only: these tasks end at the checkout, before any run. */
const runnerWithoutRuns = new Proxy(
  { redact: (text: string) => text, addSecret: () => undefined },
  {
    get(target, property) {
      if (property in target) return target[property as keyof typeof target];
      throw new Error(`runner.${String(property)} was used before the checkout was ready`);
    },
  },
) as unknown as AgentRunner;

const refusingCache: RepositoryCache = {
  checkout: () => Promise.reject(new Error("clone refused by the remote")),
  removeLeftovers: () => Promise.resolve(0),
  settled: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

const bot = { login: "agentforge[bot]", type: "Bot" };
const isLookup = (parameters: Record<string, unknown>) => "since" in parameters;

/** The reads a fix job makes before and beside its checkout (its own read of the conversation has no `since`). */
function mockJobReads(): nock.Scope {
  return nock(API)
    .get(/^\/users\/agentforge/)
    .reply(200, { id: 9, login: "agentforge[bot]", type: "Bot" })
    .get("/repos/o/r")
    .query(true)
    .reply(200, { default_branch: "main", clone_url: "https://github.com/o/r.git", full_name: "o/r" })
    .get(/^\/repos\/o\/r\/contents\//)
    .query(true)
    .reply(404, { message: "Not Found" })
    .get("/repos/o/r/issues/7")
    .query(true)
    .reply(200, { number: 7, title: "sum is wrong", body: "", user: { login: "octocat", type: "User" } })
    .get("/repos/o/r/issues/7/comments")
    .query((parameters) => !isLookup(parameters))
    .reply(200, []);
}

describe("a later attempt whose dead worker posted its comment but never recorded it", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  const unmatched: string[] = [];
  const onNoMatch = (request: { method?: string; path?: string }): void => {
    unmatched.push(`${request.method ?? "?"} ${request.path ?? "?"}`);
  };
  const clock = createManualClock();
  beforeEach(async () => {
    nock.disableNetConnect();
    nock.emitter.on("no match", onNoMatch);
    unmatched.length = 0;
    dir = await mkdtemp(join(tmpdir(), "agentforge-restart-finds-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "q.sqlite"),
      decodePayload: decodeGitHubRequest,
      now: clock.now,
      leaseMs: 1_000,
      maxAttempts: 2,
    });
  });
  afterEach(async () => {
    nock.emitter.off("no match", onNoMatch);
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Enqueues the task; each of `deaths` workers claims it and stops without a word. */
  async function enqueueAndDie(deaths: number): Promise<string> {
    const { taskId } = await queue.enqueue({
      deliveryId: "d-7",
      key: "o/r#7",
      installationId: 1,
      payload: fix,
    });
    for (let death = 0; death < deaths; death += 1) {
      expect(await queue.claim(`dead-${death}`)).toMatchObject({ taskId });
      clock.advance(1_001);
    }
    return taskId!;
  }

  async function runWorker(taskId: string): Promise<void> {
    const controller = new AbortController();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "installation-token" })),
      handler: createGitHubTaskHandler({
        runner: runnerWithoutRuns,
        commandRunner: { run: () => Promise.reject(new Error("no command runs before the checkout")) },
        cache: refusingCache,
        dataDir: dir,
        appSlug: "agentforge",
        logger: createRecordingLogger(),
        getInstallationToken: () => Promise.resolve("ghs_restart_test_token"),
      }),
    });
    await waitUntil(async () => {
      const state = (await queue.get(taskId))?.state;
      return state !== "queued" && state !== "running";
    }, "the task to end");
    controller.abort();
    await loop;
  }

  it("marks the bot's marked comment interrupted and posts exactly one new comment", async () => {
    const taskId = await enqueueAndDie(1);
    const marker = renderTaskCommentMarker(taskId);
    const posted: string[] = [];
    const interrupted: string[] = [];
    const comments = nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query(isLookup)
      .reply(200, [
        { id: 86, user: { login: "mallory", type: "User" }, body: `👀 Working on it…\n\n${marker}` },
        { id: 88, user: bot, body: `👀 Working on it…\n\n${marker}` },
      ])
      .patch("/repos/o/r/issues/comments/88", (body: { body: string }) => interrupted.push(body.body) > 0)
      .reply(200, {})
      .post("/repos/o/r/issues/7/comments", (body: { body: string }) => posted.push(body.body) > 0)
      .reply(201, { id: 91 })
      .patch("/repos/o/r/issues/comments/91")
      .reply(200, {})
      .persist();
    mockJobReads();
    await runWorker(taskId);
    expect(interrupted).toEqual([
      `⏸️ This run was interrupted (the worker stopped); it continues in a new comment below.\n\n${marker}`,
    ]);
    expect(posted).toEqual([`👀 Picking this up again after an interruption…\n\n${marker}`]);
    expect(unmatched).toStrictEqual([]);
    comments.persist(false);
  });

  it("closes the found comment with the given-up text on the report attempt, posting none", async () => {
    const taskId = await enqueueAndDie(2);
    const marker = renderTaskCommentMarker(taskId);
    const closed: string[] = [];
    const scope = nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query(isLookup)
      .reply(200, [
        { id: 88, user: bot, body: `👀 Picking this up again after an interruption…\n\n${marker}` },
      ])
      .patch("/repos/o/r/issues/comments/88", (body: { body: string }) => closed.push(body.body) > 0)
      .reply(200, {});
    await runWorker(taskId);
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(closed).toEqual([expect.stringMatching(/^❌ Given up: the worker running this stopped/)]);
    expect(closed[0]).toContain(marker);
    expect(unmatched).toStrictEqual([]);
  });

  it("closes the newest marked comment when the record still names an earlier attempt's", async () => {
    const taskId = await enqueueAndDie(2);
    const marker = renderTaskCommentMarker(taskId);
    // The first attempt recorded comment 70; the second posted 88 and died before recording it.
    await openJobRecordStore(dir, taskId).update({ progressCommentId: 70 });
    const closed: string[] = [];
    const scope = nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query(isLookup)
      .reply(200, [
        { id: 70, user: bot, body: `⏸️ This run was interrupted…\n\n${marker}` },
        { id: 88, user: bot, body: `👀 Picking this up again after an interruption…\n\n${marker}` },
      ])
      .patch("/repos/o/r/issues/comments/88", (body: { body: string }) => closed.push(body.body) > 0)
      .reply(200, {});
    await runWorker(taskId);
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(closed).toEqual([expect.stringMatching(/^❌ Given up: the worker running this stopped/)]);
    expect(unmatched).toStrictEqual([]);
  });

  it("makes no lookup on a first attempt", async () => {
    const taskId = await enqueueAndDie(0);
    const posted: string[] = [];
    const lookup = nock(API).get("/repos/o/r/issues/7/comments").query(isLookup).reply(200, []);
    const comments = nock(API)
      .post("/repos/o/r/issues/7/comments", (body: { body: string }) => posted.push(body.body) > 0)
      .reply(201, { id: 91 })
      .patch("/repos/o/r/issues/comments/91")
      .reply(200, {})
      .persist();
    mockJobReads();
    await runWorker(taskId);
    expect(lookup.isDone()).toBe(false);
    expect(posted).toEqual([`👀 Working on it…\n\n${renderTaskCommentMarker(taskId)}`]);
    expect(unmatched).toStrictEqual([]);
    comments.persist(false);
  });
});
