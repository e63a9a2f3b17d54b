import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { replyOnce } from "../../../src/doors/github-app/reply-once.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";

describe("replyOnce", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentforge-reply-once-"));
    queue = createSqliteTaskQueue({ filePath: join(dir, "q.sqlite"), decodePayload: decodeGitHubRequest });
  });
  afterEach(async () => {
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("leaves a delivery whose reply failed to post unanswered, so triage's retry posts it", async () => {
    const posted: string[] = [];
    const failing = () => Promise.reject(new Error("GitHub answered 502"));
    await expect(replyOnce(queue, "d-1", failing)).rejects.toThrow("502");
    expect(await queue.hasDelivery("d-1")).toBe(false);
    expect(await replyOnce(queue, "d-1", async () => posted.push("reply"))).toBe(true);
    expect(posted).toEqual(["reply"]);
    // Answered now: a redelivery or a second triage says nothing more.
    expect(await replyOnce(queue, "d-1", async () => posted.push("again"))).toBe(false);
    expect(posted).toEqual(["reply"]);
  });
});
