import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import type { ProbotOctokit } from "probot";
import type { GitHubRequester } from "../../../../src/doors/github/pull-request/github-requester.js";
import { buildReview } from "../../../../src/doors/github/review/build-review.js";
import { readOwnReviewHistory } from "../../../../src/doors/github/review/read-own-review-history.js";
import { extractFingerprints } from "../../../../src/doors/github/review/fingerprint-finding.js";
import { parseDiffForReview } from "../../../../src/doors/github/review/parse-diff-for-review.js";
import { postReview } from "../../../../src/doors/github/review/post-review.js";

const API = "https://api.github.com";
const silent = (): void => undefined;
const quietOctokit = (): Octokit =>
  new Octokit({
    auth: "installation-token",
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
const REVIEWS = "/repos/octo/demo/pulls/7/reviews";
const SECRET = "ghs_reviewSecret0123456789abcdefABCDEF";
const redact = (text: string): string => text.split(SECRET).join("[REDACTED]");

const DIFF = [
  "diff --git a/src/app.ts b/src/app.ts",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,2 +1,3 @@",
  " one",
  "+two",
  " three",
  "",
].join("\n");

function octokit(): Octokit {
  return quietOctokit();
}

function sampleReview() {
  return buildReview({
    files: parseDiffForReview(DIFF),
    findings: [
      {
        path: "src/app.ts",
        line: 2,
        severity: "high",
        category: "security",
        title: "Token printed",
        body: `prints ${SECRET}`,
      },
      {
        path: "src/app.ts",
        line: 3,
        severity: "low",
        category: "style",
        title: "Naming",
        body: "rename three",
      },
      {
        path: "src/gone.ts",
        line: 9,
        severity: "medium",
        category: "tests",
        title: "No test",
        body: "untested",
      },
    ],
  });
}

// Compile-time check: Probot's octokit fits the narrow interface these modules take.
export const probotFits: (octokit: ProbotOctokit) => GitHubRequester = (octokit) => octokit;

describe("postReview", () => {
  beforeAll(() => nock.disableNetConnect());
  // A later test file in this worker talks to local servers over HTTP: leave the network as found.
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    nock.cleanAll();
  });

  it("posts one COMMENT review with its inline comments", async () => {
    let sent: Record<string, unknown> = {};
    const scope = nock(API)
      .post(REVIEWS, (body: Record<string, unknown>) => {
        sent = body;
        return true;
      })
      .reply(200, { id: 1, html_url: "https://github.com/octo/demo/pull/7#pullrequestreview-1" });
    const review = sampleReview();
    const posted = await postReview(octokit(), {
      owner: "octo",
      repo: "demo",
      pull_number: 7,
      commit_id: "abc",
      review,
      redact,
    });
    expect(posted).toEqual({
      id: 1,
      url: expect.stringContaining("pullrequestreview-1"),
      movedToBody: 0,
      attempts: 1,
    });
    expect(sent).toMatchObject({ event: "COMMENT", commit_id: "abc" });
    expect(sent["comments"]).toHaveLength(2);
    expect(sent["body"]).toContain("Findings outside the diff");
    expect(JSON.stringify(sent)).not.toContain(SECRET);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("after a 422 posts again with every inline comment moved into the body", async () => {
    const bodies: Record<string, unknown>[] = [];
    const scope = nock(API)
      .post(REVIEWS, (body: Record<string, unknown>) => {
        bodies.push(body);
        return true;
      })
      .reply(422, { message: "Unprocessable Entity", errors: ["Line could not be resolved"] })
      .post(REVIEWS, (body: Record<string, unknown>) => {
        bodies.push(body);
        return true;
      })
      .reply(200, { id: 2, html_url: null });
    const review = sampleReview();
    const posted = await postReview(octokit(), {
      owner: "octo",
      repo: "demo",
      pull_number: 7,
      commit_id: "abc",
      review,
      redact,
    });

    expect(posted).toMatchObject({ id: 2, movedToBody: 2, attempts: 2 });
    expect(bodies[1]!["comments"]).toEqual([]);
    const body = String(bodies[1]!["body"]);
    expect(body).toContain("Comments that could not be placed on their lines");
    expect(body).toContain("`src/app.ts:2`");
    expect(body).toContain("Token printed");
    expect(body).toContain("Naming");
    expect(body).toContain("No test");
    expect(body).not.toContain(SECRET);
    // All three fingerprints survive, so a later run does not post them again.
    expect(new Set(extractFingerprints(body)).size).toBe(3);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("drops the commit on a second 422, and throws other errors", async () => {
    const bodies: Record<string, unknown>[] = [];
    const record = (body: Record<string, unknown>) => {
      bodies.push(body);
      return true;
    };
    nock(API)
      .post(REVIEWS, record)
      .reply(422, {})
      .post(REVIEWS, record)
      .reply(422, {})
      .post(REVIEWS, record)
      .reply(200, { id: 3 });
    const posted = await postReview(octokit(), {
      owner: "octo",
      repo: "demo",
      pull_number: 7,
      commit_id: "stale",
      review: sampleReview(),
      redact,
    });
    expect(posted.attempts).toBe(3);
    expect(bodies[2]).not.toHaveProperty("commit_id");

    nock(API).post(REVIEWS).reply(500, { message: "boom" });
    await expect(
      postReview(octokit(), {
        owner: "octo",
        repo: "demo",
        pull_number: 7,
        commit_id: "abc",
        review: sampleReview(),
        redact,
      }),
    ).rejects.toMatchObject({ status: 500 });
  });
});

describe("readOwnReviewHistory", () => {
  beforeAll(() => nock.disableNetConnect());
  // A later test file in this worker talks to local servers over HTTP: leave the network as found.
  afterAll(() => nock.enableNetConnect());

  const BOT = { login: "agentforge[bot]", type: "Bot" };
  const PERSON = { login: "mallory", type: "User" };
  const marker = (index: number) => `<!-- agentforge:fp=${index.toString(16).padStart(16, "0")} -->`;
  const target = { owner: "octo", repo: "demo", pull_number: 7 };

  it("reads every page of its own review comments and review bodies", async () => {
    const firstPage = Array.from({ length: 100 }, (_, index) => ({
      id: index,
      user: BOT,
      body: `c ${marker(index)}`,
    }));
    const scope = nock(API)
      .get("/repos/octo/demo/pulls/7/comments")
      .query({ per_page: "100", page: "1" })
      .reply(200, firstPage)
      .get("/repos/octo/demo/pulls/7/comments")
      .query({ per_page: "100", page: "2" })
      .reply(200, [
        { id: 100, user: BOT, body: `last ${marker(100)}` },
        { id: 101, user: PERSON, body: "from a person" },
      ])
      .get("/repos/octo/demo/pulls/7/reviews")
      .query({ per_page: "100", page: "1" })
      .reply(200, [
        { id: 1, user: BOT, commit_id: "a".repeat(40), body: `${marker(500)} and ${marker(501)}` },
        { id: 2, user: BOT, commit_id: "b".repeat(40), body: null },
      ]);
    const history = await readOwnReviewHistory(octokit(), target, "agentforge[bot]");
    expect(history.fingerprints.size).toBe(103);
    expect(history.fingerprints.has("0000000000000064")).toBe(true);
    expect(history.fingerprints.has("00000000000001f5")).toBe(true);
    expect(history.lastReviewedCommit).toBe("b".repeat(40));
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("ignores markers and reviews written by anyone else, so nobody can silence a finding", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7/comments")
      .query(true)
      .reply(200, [{ id: 1, user: PERSON, body: `pasted ${marker(1)}` }])
      .get("/repos/octo/demo/pulls/7/reviews")
      .query(true)
      .reply(200, [
        { id: 2, user: BOT, commit_id: "a".repeat(40), body: marker(2) },
        { id: 3, user: PERSON, commit_id: "c".repeat(40), body: marker(3) },
        { id: 4, user: null, commit_id: "d".repeat(40), body: marker(4) },
      ]);
    const history = await readOwnReviewHistory(octokit(), target, "AgentForge[bot]");
    expect([...history.fingerprints]).toEqual(["0000000000000002"]);
    expect(history.lastReviewedCommit).toBe("a".repeat(40));
  });

  it("has no starting point on a pull request it never reviewed", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7/comments")
      .query(true)
      .reply(200, [])
      .get("/repos/octo/demo/pulls/7/reviews")
      .query(true)
      .reply(200, [{ id: 3, user: PERSON, commit_id: "c".repeat(40), body: "LGTM" }]);
    const history = await readOwnReviewHistory(octokit(), target, "agentforge[bot]");
    expect(history.lastReviewedCommit).toBeNull();
    expect(history.fingerprints.size).toBe(0);
  });
});
