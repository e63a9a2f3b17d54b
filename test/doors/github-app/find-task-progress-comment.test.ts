import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import {
  findTaskProgressComment,
  type TaskProgressCommentQuery,
} from "../../../src/doors/github-app/find-task-progress-comment.js";
import { renderTaskCommentMarker } from "../../../src/doors/github-app/task-comment-marker.js";
import { API, createRecordingLogger, TestOctokit } from "./github-app-test-helpers.js";

const taskId = "6f1c2a4e-0d1b-4c55-9a0e-3b7d2f9e8c11";
const query: TaskProgressCommentQuery = {
  owner: "o",
  repo: "r",
  number: 7,
  taskId,
  appSlug: "agentforge",
  isThreadReply: false,
  enqueuedAt: Date.parse("2026-01-02T03:20:00Z"),
};
const bot = { login: "agentforge[bot]", type: "Bot" };
const person = { login: "mallory", type: "User" };
const marked = (text: string, id = taskId) => `${text}\n\n${renderTaskCommentMarker(id)}`;

describe("findTaskProgressComment", () => {
  const octokit = new TestOctokit({ auth: "installation-token" });
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("picks the bot's newest comment marked with the task, never a person's copy or another task's", async () => {
    const scope = nock(API)
      .get("/repos/o/r/issues/7/comments")
      // Issue comments cannot be sorted: the list is kept to what changed since the task was queued.
      .query({ since: "2026-01-02T03:10:00.000Z", per_page: "100", page: "1" })
      .reply(200, [
        { id: 1, user: bot, body: marked("⏸️ This run was interrupted") },
        { id: 2, user: bot, body: marked("👀 Working on it…", "another-task") },
        { id: 3, user: bot, body: marked("👀 Picking this up again after an interruption…") },
        { id: 4, user: person, body: marked("👀 Working on it… (copied)") },
        { id: 5, user: { login: "agentforge[bot]", type: "User" }, body: marked("not a bot") },
        { id: 6, user: bot, body: "👀 Working on it…" },
      ]);
    expect(await findTaskProgressComment(octokit, query, createRecordingLogger())).toBe(3);
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("answers null when only a person's comment carries the task's marker", async () => {
    nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query(true)
      .reply(200, [{ id: 4, user: person, body: marked("👀 Working on it…") }]);
    expect(await findTaskProgressComment(octokit, query, createRecordingLogger())).toBeNull();
  });

  it("reads the next page only when a page is full, and stops after a few", async () => {
    const full = (from: number) =>
      Array.from({ length: 100 }, (_, index) => ({ id: from + index, user: person, body: "hi" }));
    const scope = nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query((parameters) => parameters.page === "1")
      .reply(200, full(100))
      .get("/repos/o/r/issues/7/comments")
      .query((parameters) => parameters.page === "2")
      .reply(200, [...full(200).slice(0, 99), { id: 299, user: bot, body: marked("👀") }])
      .get("/repos/o/r/issues/7/comments")
      .query((parameters) => parameters.page === "3")
      .reply(200, full(300));
    expect(await findTaskProgressComment(octokit, query, createRecordingLogger())).toBe(299);
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("looks in the pull request's review comments, newest first, for a reply in a thread", async () => {
    const scope = nock(API)
      .get("/repos/o/r/pulls/7/comments")
      .query({
        sort: "created",
        direction: "desc",
        since: "2026-01-02T03:10:00.000Z",
        per_page: "100",
        page: "1",
      })
      .reply(200, [
        { id: 12, user: person, body: marked("copied") },
        { id: 11, user: bot, body: marked("👀 Working on it…"), in_reply_to_id: 10 },
        { id: 9, user: bot, body: marked("older"), in_reply_to_id: 8 },
      ]);
    expect(
      await findTaskProgressComment(octokit, { ...query, isThreadReply: true }, createRecordingLogger()),
    ).toBe(11);
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("answers null with a warning when GitHub refuses the list", async () => {
    nock(API)
      .get("/repos/o/r/issues/7/comments")
      .query(true)
      .reply(403, { message: "Resource not accessible by integration" });
    const logger = createRecordingLogger();
    expect(await findTaskProgressComment(octokit, query, logger)).toBeNull();
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: "warn", details: expect.objectContaining({ taskId }) }),
    ]);
  });
});
