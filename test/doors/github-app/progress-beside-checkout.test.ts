import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import type { AgentRunner } from "../../../src/core/agent-run.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { createGitHubTaskHandler } from "../../../src/doors/github-app/handle-github-task.js";
import { runGitHubTaskWorkers } from "../../../src/doors/github-app/run-github-task-workers.js";
import type {
  CheckoutOptions,
  RepositoryCache,
} from "../../../src/doors/github/workspace/create-repository-cache.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { waitUntil } from "../../support/wait-until.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

/** A body as written, without the hidden marker naming its task (every progress comment ends with one). */
const withoutTaskMarker = (body: string): string => body.replace(/\n\n<!-- agentforge-task: [\w-]+ -->$/, "");

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

/** The runner's redaction only: these tasks end before any run, so the rest must stay unused. */
const runnerWithoutRuns = new Proxy(
  { redact: (text: string) => text, addSecret: () => undefined },
  {
    get(target, property) {
      if (property in target) return target[property as keyof typeof target];
      throw new Error(`runner.${String(property)} was used before the checkout was ready`);
    },
  },
) as unknown as AgentRunner;

/** A repository cache whose checkouts the test ends; each records how it ended. */
function scriptedCache(checkout: (options: CheckoutOptions) => Promise<never>) {
  const asked: CheckoutOptions[] = [];
  let markAsked: () => void = () => undefined;
  const firstAsked = new Promise<void>((resolve) => (markAsked = resolve));
  const cache: RepositoryCache = {
    checkout: (options) => {
      asked.push(options);
      markAsked();
      return checkout(options);
    },
    removeLeftovers: () => Promise.resolve(0),
    settled: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return { cache, asked, firstAsked };
}

/** The reads a fix job makes before and beside its checkout. */
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
    .query(true)
    .reply(200, []);
}

describe("a task's progress comment, started beside its checkout", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-progress-beside-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "q.sqlite"),
      decodePayload: decodeGitHubRequest,
      maxAttempts: 1,
    });
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function runTask(cache: RepositoryCache) {
    const { taskId } = await queue.enqueue({
      deliveryId: "d-7",
      key: "o/r#7",
      installationId: 1,
      payload: fix,
    });
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
        cache,
        dataDir: dir,
        appSlug: "agentforge",
        logger: createRecordingLogger(),
        getInstallationToken: () => Promise.resolve("ghs_beside_test_token"),
      }),
    });
    await waitUntil(
      async () =>
        (await queue.get(taskId!))?.state !== "queued" && (await queue.get(taskId!))?.state !== "running",
      "the task to end",
    );
    controller.abort();
    await loop;
    return queue.get(taskId!);
  }

  it("checks out while the comment is being posted, and a failed checkout is told in that comment once", async () => {
    const { cache, asked, firstAsked } = scriptedCache(() =>
      Promise.reject(new Error("clone refused by the remote")),
    );
    const posted: string[] = [];
    const edited: string[] = [];
    // The comment is answered only once the checkout was asked for: a worker that waited for the
    // comment before checking out would never get there.
    const comments = nock(API)
      .post(
        "/repos/o/r/issues/7/comments",
        (body: { body: string }) => posted.push(withoutTaskMarker(body.body)) > 0,
      )
      .reply(async () => {
        await firstAsked;
        return [201, { id: 91 }];
      })
      .patch("/repos/o/r/issues/comments/91", (body: { body: string }) => edited.push(body.body) > 0)
      .reply(200, {})
      .persist();
    const reads = mockJobReads();
    const task = await runTask(cache);
    expect(reads.pendingMocks()).toStrictEqual([]);
    expect(asked).toHaveLength(1);
    expect(posted).toEqual(["👀 Working on it…"]);
    expect(edited.filter((body) => body.includes("clone refused by the remote"))).toHaveLength(1);
    expect(edited.at(-1)).toContain("clone refused by the remote");
    expect(task).toMatchObject({ state: "completed", outcome: { status: "failed" } });
    comments.persist(false);
  });

  it("stops the checkout when the comment cannot be posted, and reports the comment's error once", async () => {
    const ended: unknown[] = [];
    // Like git, the checkout ends only when its signal stops it.
    const { cache, asked } = scriptedCache(
      (options) =>
        new Promise<never>((_resolve, reject) => {
          const stop = () => {
            ended.push(options.signal?.reason);
            reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error("stopped"));
          };
          if (options.signal?.aborted) stop();
          else options.signal?.addEventListener("abort", stop, { once: true });
        }),
    );
    const posted: string[] = [];
    const comments = nock(API)
      .post(
        "/repos/o/r/issues/7/comments",
        (body: { body: string }) => posted.push(withoutTaskMarker(body.body)) > 0,
      )
      .reply(403, { message: "Resource not accessible by integration" })
      .post("/repos/o/r/issues/7/comments", (body: { body: string }) => posted.push(body.body) > 0)
      .reply(201, { id: 92 });
    mockJobReads();
    const task = await runTask(cache);
    expect(comments.pendingMocks()).toStrictEqual([]);
    expect(posted).toHaveLength(2);
    expect(posted[0]).toBe("👀 Working on it…");
    expect(posted[1]).toMatch(/^The run failed: .*Resource not accessible by integration/);
    // Whenever the checkout was asked for, the failed comment stopped it: nothing is left checked out.
    expect(ended).toHaveLength(asked.length);
    expect(
      ended.every(
        (reason) => reason instanceof Error && "code" in reason && reason.code === "PROGRESS_START_FAILED",
      ),
    ).toBe(true);
    expect(task).toMatchObject({ state: "failed" });
  });
});
