import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { runGitHubJob } from "../../../../src/doors/github/jobs/run-github-job.js";
import {
  resolveThreadAs,
  threadResolvedBy,
} from "../../../support/github-stand-in/graphql-review-thread-routes.js";
import { createJobHarness, OWNER, REPO, type JobHarness } from "./job-harness.js";
import { openPullRequest, pushFeatureCommit, WITH_DIV } from "./open-pull-request.js";
import { createReviewerModel, findingsJson } from "./reviewer-answers.js";

const DIVISION = { path: "sum.js", line: 5, title: "Division by zero", body: "b is not checked for zero." };
const SUM = { path: "sum.js", line: 2, title: "Overflow in sum", body: "a + b may pass the safe range." };
const EXPORTS = { path: "sum.js", line: 7, title: "Exports are unsorted", body: "Sort the exports." };
const FIXED_DIV = WITH_DIV.replace(
  "  return a / b;",
  "  if (b === 0) throw new RangeError('b is zero');\n  return a / b;",
);

describe("a later review resolves this bot's findings the new commits fixed", () => {
  let harness: JobHarness;
  beforeEach(async () => {
    harness = await createJobHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  it("resolves the fixed finding's thread and names it, leaving a person's thread, an unaffected finding and a refused one alone", async () => {
    const number = await openPullRequest(harness);
    const model = createReviewerModel({
      correctness: findingsJson([DIVISION, SUM]),
      security: "[]",
      tests: findingsJson([{ ...EXPORTS, category: "tests" }]),
    });
    await runGitHubJob(harness.job("review", number), harness.deps(model));
    const state = harness.github.repository(OWNER, REPO);
    const first = state.reviews[0]!;
    const commentOn = (line: number) => first.comments.find((comment) => comment.line === line)!;
    expect(first.comments.map((comment) => comment.line).sort()).toEqual([2, 5, 7]);
    // A person's own thread on the line the fix changes, and a refusal of the finding on line 7.
    state.reviews.push({
      id: 9100,
      pullNumber: number,
      body: "",
      commitId: first.commitId,
      author: "alice",
      comments: [{ id: 9101, path: "sum.js", line: 5, side: "RIGHT", body: "Should this throw?" }],
    });
    state.threadReplies.push({
      id: 9102,
      pullNumber: number,
      inReplyTo: commentOn(7).id,
      author: "alice",
      body: "Won't fix: the order matches the docs.",
      history: [],
    });

    // The push rewrites the lines of the division finding and of line 7's thread, not line 2.
    pushFeatureCommit(harness, FIXED_DIV.replace("{ sum, div }", "{ div, sum }"), "Check for zero");
    const head = harness.github.branchSha(OWNER, REPO, "feature")!;
    model.answers.correctness = "[]";
    model.answers.tests = "[]";
    await runGitHubJob(harness.job("review", number), harness.deps(model));

    expect(threadResolvedBy(state, commentOn(5).id)).toBe("agentforge[bot]");
    expect(threadResolvedBy(state, commentOn(2).id)).toBeNull();
    expect(threadResolvedBy(state, commentOn(7).id)).toBeNull();
    expect(threadResolvedBy(state, 9101)).toBeNull();
    const second = state.reviews.at(-1)!;
    expect(second.commitId).toBe(head);
    expect(second.body).toContain(`Resolved 1 earlier finding fixed by ${head.slice(0, 7)}:`);
    expect(second.body).toContain(`[Division by zero](`);
    expect(second.body).toContain(`#discussion_r${commentOn(5).id})`);
    expect(harness.finished).toContain("1 earlier finding(s) resolved as fixed");
    const mutations = harness.github.requests.filter(
      (request) =>
        request.path === "/api/graphql" && JSON.stringify(request.body).includes("resolveReviewThread"),
    );
    expect(mutations).toHaveLength(1);
  });

  it("keeps a thread open when the reviewers raise the same finding again, or a person resolved it", async () => {
    const number = await openPullRequest(harness);
    const model = createReviewerModel({
      correctness: findingsJson([DIVISION, SUM]),
      security: "[]",
      tests: "[]",
    });
    await runGitHubJob(harness.job("review", number), harness.deps(model));
    const state = harness.github.repository(OWNER, REPO);
    const first = state.reviews[0]!;
    const onDivision = first.comments.find((comment) => comment.line === 5)!;
    const onSum = first.comments.find((comment) => comment.line === 2)!;
    resolveThreadAs(state, onSum.id, "alice");

    // Both lines change, but the division finding is still there (the check is on the wrong side).
    pushFeatureCommit(
      harness,
      WITH_DIV.replace("  return a + b;", "  return b + a;").replace(
        "  return a / b;",
        "  return a / (b || b);",
      ),
      "Rewrite",
    );
    // The division finding again, and the one a person resolved: neither is posted a second time.
    model.answers.correctness = findingsJson([{ ...DIVISION, line: 5 }, SUM]);
    await runGitHubJob(harness.job("review", number), harness.deps(model));

    expect(threadResolvedBy(state, onDivision.id)).toBeNull();
    expect(threadResolvedBy(state, onSum.id)).toBe("alice");
    const second = state.reviews.at(-1)!;
    expect(second.body).not.toContain("Resolved");
    // The finding raised again is not posted a second time either.
    expect(second.comments).toEqual([]);
    expect(second.body).toContain("already reported");
  });
});
