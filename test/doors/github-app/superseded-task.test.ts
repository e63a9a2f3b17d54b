import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import { supersedeRulesFor } from "../../../src/doors/github-app/supersede-rules.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { deferred } from "../../support/deferred.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

/** A body as written, without the hidden marker naming its task (every progress comment ends with one). */
const withoutTaskMarker = (body: string): string => body.replace(/\n\n<!-- agentforge-task: [\w-]+ -->$/, "");

function fixOnPull(
  deliveryId: string,
  requester: string,
  trigger: GitHubRequest["trigger"] = "comment",
): GitHubRequest {
  return {
    deliveryId,
    eventName: "issue_comment.created",
    installationId: 1,
    owner: "o",
    repo: "r",
    number: 5,
    isPullRequest: true,
    command: { kind: "fix" },
    trigger,
    requester,
    commentId: null,
    headSha: null,
    beforeSha: null,
    reviewComment: null,
    receivedAt: 0,
  };
}

const enqueue = (queue: TaskQueue<GitHubRequest>, request: GitHubRequest) =>
  queue.enqueue({
    deliveryId: request.deliveryId,
    key: "o/r#5",
    installationId: 1,
    payload: request,
    ...supersedeRulesFor(request),
  });

describe("a newer fix on a pull request supersedes the running one", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-superseded-"));
    queue = createSqliteTaskQueue({ filePath: join(dir, "q.sqlite"), decodePayload: decodeGitHubRequest });
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("aborts the running fix, ends its comment with the reason first, marks it cancelled and runs the newer one", async () => {
    const edits: string[] = [];
    let nextId = 100;
    nock(API)
      .post("/repos/o/r/issues/5/comments")
      .reply(201, () => ({ id: (nextId += 1) }))
      .persist()
      .patch(/\/repos\/o\/r\/issues\/comments\/\d+/, (body: { body: string }) => {
        edits.push(withoutTaskMarker(body.body));
        return true;
      })
      .reply(200, {})
      .persist();
    const first = await enqueue(queue, fixOnPull("d-1", "alice"));
    const firstStarted = deferred();
    const secondDone = deferred();
    const logger = createRecordingLogger();
    const controller = new AbortController();
    const loop = runGitHubTaskWorkers({
      queue,
      concurrency: 2,
      signal: controller.signal,
      pollMs: 5,
      redact: (text) => text,
      logger,
      getInstallationOctokit: () => Promise.resolve(new TestOctokit({ auth: "t" })),
      handler: async (task, { progress, signal }) => {
        await progress.start("👀 Working on it…");
        if (task.payload.deliveryId === "d-2") {
          await progress.finish("✅ Pushed the newer fix.");
          secondDone.resolve();
          return { status: "pull-request-updated", summary: "pushed" };
        }
        firstStarted.resolve();
        // The job's own ending when its run is cancelled, as run-fix-job writes it.
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        await progress.finish("❌ The run was stopped.");
        return { status: "failed", summary: "cancelled" };
      },
    });
    await firstStarted.promise;
    const second = await enqueue(queue, fixOnPull("d-2", "bob"));
    expect(second.cancelledRunningTaskId).toBe(first.taskId);
    await secondDone.promise;
    controller.abort();
    await loop;
    const reason = "a newer `fix` request by @bob arrived; running that instead";
    expect(edits).toContain(
      `⏹️ Cancelled: ${reason}. This run stops here; nothing more is posted or pushed for it.\n\n❌ The run was stopped.`,
    );
    expect(await queue.get(first.taskId!)).toMatchObject({ state: "cancelled", lastError: reason });
    expect((await queue.get(second.taskId!))?.state).toBe("completed");
  });
});
