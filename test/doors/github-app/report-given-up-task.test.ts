import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import {
  createGitHubTaskHandler,
  type GitHubTaskHandlerOptions,
} from "../../../src/doors/github-app/handle-github-task.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import { openJobRecordStore } from "../../../src/doors/github/jobs/job-record-store.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { waitUntil } from "../../support/wait-until.js";
import { createManualClock } from "../../queue/queue-test-helpers.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

/** Anything the agent side of the handler would touch: a report attempt must touch none of it. */
function untouchable<T>(name: string): T {
  return new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(`${name}.${String(property)} was used by a report attempt`);
      },
    },
  ) as T;
}

function request(trigger: GitHubRequest["trigger"]): GitHubRequest {
  return {
    deliveryId: "d-7",
    eventName: "issue_comment.created",
    installationId: 1,
    owner: "o",
    repo: "r",
    number: 7,
    isPullRequest: trigger === "review-comment",
    command: { kind: "fix" },
    trigger,
    requester: "octocat",
    commentId: 40,
    headSha: null,
    beforeSha: null,
    reviewComment: null,
    receivedAt: 0,
  };
}

describe("a task whose last attempt's worker stopped", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  const clock = createManualClock();
  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-given-up-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "q.sqlite"),
      decodePayload: decodeGitHubRequest,
      now: clock.now,
      leaseMs: 1_000,
      maxAttempts: 2,
    });
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Two attempts, each claimed by a worker that then stops without a word. */
  async function dieTwice(trigger: GitHubRequest["trigger"]): Promise<string> {
    const { taskId } = await queue.enqueue({
      deliveryId: "d-7",
      key: "o/r#7",
      installationId: 1,
      payload: request(trigger),
    });
    for (const worker of ["dead-1", "dead-2"]) {
      expect(await queue.claim(worker)).toMatchObject({ taskId });
      clock.advance(1_001);
    }
    return taskId!;
  }

  async function runReportAttempt(taskId: string): Promise<void> {
    const options: GitHubTaskHandlerOptions = {
      runner: untouchable("runner"),
      commandRunner: untouchable("commandRunner"),
      cache: untouchable("cache"),
      dataDir: dir,
      appSlug: "agentforge",
      logger: createRecordingLogger(),
      getInstallationToken: () => Promise.reject(new Error("a report attempt needs no token")),
    };
    const controller = new AbortController();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "installation-token" })),
      handler: createGitHubTaskHandler(options),
    });
    await waitUntil(
      async () => (await queue.get(taskId))?.state === "completed",
      "the report attempt to end",
    );
    controller.abort();
    await loop;
  }

  it("tells the requester it was given up, in a new comment, without running anything", async () => {
    const bodies: string[] = [];
    const scope = nock(API)
      .post("/repos/o/r/issues/7/comments", (body: { body: string }) => bodies.push(body.body) > 0)
      .reply(201, { id: 90 });
    const taskId = await dieTwice("comment");
    await runReportAttempt(taskId);
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatch(/^❌ Given up: the worker running this stopped on each of its 2 attempts/);
    expect(bodies[0]).toContain("nothing was published");
    expect(await queue.get(taskId)).toMatchObject({
      state: "completed",
      attempts: 3,
      outcome: { status: "failed", summary: expect.stringContaining("given up") },
    });
  });

  it("closes the progress comment the dead worker left open, in its review thread", async () => {
    const bodies: string[] = [];
    const scope = nock(API)
      .patch("/repos/o/r/pulls/comments/55", (body: { body: string }) => bodies.push(body.body) > 0)
      .reply(200, {});
    const taskId = await dieTwice("review-comment");
    await openJobRecordStore(dir, taskId).update({ progressCommentId: 55 });
    await runReportAttempt(taskId);
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(bodies).toEqual([expect.stringMatching(/^❌ Given up/)]);
  });
});
