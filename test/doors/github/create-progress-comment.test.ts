import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import { createProgressComment } from "../../../src/doors/github/create-progress-comment.js";
import { API, TestOctokit } from "../github-app/github-app-test-helpers.js";

describe("createProgressComment", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("posts once, merges rapid updates into one edit, and always lands the final text, redacted", async () => {
    const edits: string[] = [];
    const scope = nock(API)
      .post("/repos/o/r/issues/7/comments", { body: "Starting" })
      .reply(201, { id: 55 })
      .patch("/repos/o/r/issues/comments/55", (body: { body: string }) => {
        edits.push(body.body);
        return true;
      })
      .times(2)
      .reply(200, { id: 55 });
    const octokit = new TestOctokit({ auth: "token" });
    const progress = createProgressComment(octokit, {
      owner: "o",
      repo: "r",
      issueNumber: 7,
      minIntervalMs: 200,
      redact: (text) => text.replaceAll("ghp_secret", "[REDACTED]"),
    });
    await progress.start("Starting");
    expect(progress.commentId).toBe(55);
    for (let step = 1; step <= 10; step += 1) await progress.update(`step ${step}`);
    await progress.idle();
    expect(edits).toEqual(["step 10"]);
    await progress.finish("Done with ghp_secret");
    expect(edits).toEqual(["step 10", "Done with [REDACTED]"]);
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("drops a throttled update when finish comes first", async () => {
    const edits: string[] = [];
    nock(API)
      .post("/repos/o/r/issues/7/comments")
      .reply(201, { id: 56 })
      .patch("/repos/o/r/issues/comments/56", (body: { body: string }) => {
        edits.push(body.body);
        return true;
      })
      .reply(200, {});
    const progress = createProgressComment(new TestOctokit({ auth: "token" }), {
      owner: "o",
      repo: "r",
      issueNumber: 7,
      minIntervalMs: 10_000,
    });
    await progress.start("Starting");
    await progress.update("halfway");
    await progress.finish("Finished");
    expect(edits).toEqual(["Finished"]);
  });

  it("creates the comment on finish if nothing was posted yet", async () => {
    const scope = nock(API).post("/repos/o/r/issues/7/comments", { body: "Only" }).reply(201, { id: 57 });
    const progress = createProgressComment(new TestOctokit({ auth: "token" }), {
      owner: "o",
      repo: "r",
      issueNumber: 7,
    });
    await progress.finish("Only");
    expect(scope.pendingMocks()).toStrictEqual([]);
  });
});
