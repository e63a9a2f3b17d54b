import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import type { GitHubTask } from "../../../src/doors/github-app/task-types.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { deferred } from "../../support/deferred.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

/** A body as written, without the hidden marker naming its task (every progress comment ends with one). */
const withoutTaskMarker = (body: string): string => body.replace(/\n\n<!-- agentforge-task: [\w-]+ -->$/, "");

function taskFor(number: number): GitHubRequest {
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

describe("runGitHubTaskWorkers", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-workers-"));
    queue = createSqliteTaskQueue({ filePath: join(dir, "q.sqlite"), decodePayload: decodeGitHubRequest });
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("hands the task, an installation octokit and a progress comment to the handler, and stores its outcome", async () => {
    const scope = nock(API)
      .post(
        "/repos/o/r/issues/3/comments",
        (body: { body: string }) => withoutTaskMarker(body.body) === "Working on it",
      )
      .reply(201, { id: 77 })
      .patch(
        "/repos/o/r/issues/comments/77",
        (body: { body: string }) => withoutTaskMarker(body.body) === "Opened #4",
      )
      .reply(200, {});
    const { taskId } = await queue.enqueue({
      deliveryId: "d-3",
      key: "o/r#3",
      installationId: 1,
      payload: taskFor(3),
    });
    const seen: GitHubTask[] = [];
    const handled = deferred();
    const controller = new AbortController();
    const installations: number[] = [];
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      getInstallationOctokit: (id) => {
        installations.push(id);
        return Promise.resolve(new TestOctokit({ auth: "installation-token" }));
      },
      handler: async (task, { progress }) => {
        seen.push(task);
        await progress.start("Working on it");
        await progress.finish("Opened #4");
        handled.resolve();
        return { status: "pull-request-opened", summary: "opened #4", pullRequestNumber: 4 };
      },
    });
    await handled.promise;
    // Stopping waits for the running task: its outcome is stored when the workers end.
    controller.abort();
    await loop;
    expect(installations).toEqual([1]);
    expect(seen[0]).toMatchObject({ taskId, attempt: 1, payload: { number: 3, command: { kind: "fix" } } });
    expect((await queue.get(taskId!))?.outcome).toEqual({
      status: "pull-request-opened",
      summary: "opened #4",
      pullRequestNumber: 4,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("ends a task that throws with a comment that says so, redacted", async () => {
    const bodies: string[] = [];
    nock(API)
      .post("/repos/o/r/issues/5/comments", (body: { body: string }) => {
        bodies.push(body.body);
        return true;
      })
      .reply(201, { id: 78 });
    const { taskId } = await queue.enqueue({
      deliveryId: "d-5",
      key: "o/r#5",
      installationId: 1,
      payload: taskFor(5),
    });
    const controller = new AbortController();
    const called = deferred();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text.replaceAll("ghs_leak", "[REDACTED]"),
      logger: createRecordingLogger(),
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "t" })),
      handler: () => {
        called.resolve();
        return Promise.reject(new Error("push refused for ghs_leak"));
      },
    });
    await called.promise;
    controller.abort();
    await loop;
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toContain("The run failed: push refused for [REDACTED]");
    expect((await queue.get(taskId!))?.state).toBe("failed");
  });

  it("answers a command written in a review thread in that thread, start to finish", async () => {
    const scope = nock(API)
      .post(
        "/repos/o/r/pulls/8/comments/901/replies",
        (body: { body: string }) => withoutTaskMarker(body.body) === "Working on it",
      )
      .reply(201, { id: 902 })
      .patch(
        "/repos/o/r/pulls/comments/902",
        (body: { body: string }) => withoutTaskMarker(body.body) === "Pushed abc1234 to feature",
      )
      .reply(200, {});
    await queue.enqueue({
      deliveryId: "d-8",
      key: "o/r#8",
      installationId: 1,
      payload: {
        ...taskFor(8),
        eventName: "pull_request_review_comment.created",
        isPullRequest: true,
        command: { kind: "request", text: "why is this here?" },
        trigger: "review-comment",
        commentId: 901,
        reviewComment: { path: "sum.js", line: 2 },
      },
    });
    const controller = new AbortController();
    const handled = deferred();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "t" })),
      handler: async (_task, { progress }) => {
        await progress.start("Working on it");
        await progress.finish("Pushed abc1234 to feature");
        handled.resolve();
        return { status: "answered", summary: "answered" };
      },
    });
    await handled.promise;
    controller.abort();
    await loop;
    // Nothing went to the conversation tab: every write was the thread's reply.
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("posts no stop notice when the lease is lost: the task goes on elsewhere, and says so there", async () => {
    const posted: string[] = [];
    nock(API)
      .post("/repos/o/r/issues/9/comments", (body: { body: string }) => {
        posted.push(body.body);
        return true;
      })
      .reply(201, { id: 93 })
      .persist();
    await queue.enqueue({ deliveryId: "d-9", key: "o/r#9", installationId: 1, payload: taskFor(9) });
    // Another worker took the task over: every renewal of this worker's lease is refused.
    const lostQueue: TaskQueue<GitHubRequest> = { ...queue, heartbeat: () => Promise.resolve(false) };
    const controller = new AbortController();
    const aborted = deferred();
    const loop = runGitHubTaskWorkers({
      queue: lostQueue,
      concurrency: 1,
      signal: controller.signal,
      pollMs: 5,
      heartbeatMs: 5,
      redact: (text) => text,
      logger: createRecordingLogger(),
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "t" })),
      handler: (_task, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            aborted.resolve();
            reject(new Error("aborted"));
          });
        }),
    });
    await aborted.promise;
    controller.abort();
    await loop;
    expect(posted).toEqual([]);
  });
});
