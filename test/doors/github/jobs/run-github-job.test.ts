import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ModelClient, ModelRequest, ModelResponse } from "../../../../src/core/model/model-types.js";
import { runGitHubJob } from "../../../../src/doors/github/jobs/run-github-job.js";
import { createScriptedModel } from "../../../support/scripted-model.js";
import { createJobHarness, OWNER, REPO, type JobHarness } from "./job-harness.js";
import { openPullRequest, pushFeatureCommit, WITH_DIV } from "./open-pull-request.js";

const EDIT = {
  name: "edit_file",
  args: { path: "sum.js", old_string: "return a - b;", new_string: "return a + b;" },
};
const BREAK = {
  name: "edit_file",
  args: { path: "sum.js", old_string: "return a - b;", new_string: "return a * b;" },
};

/** Answers each reviewer by its role (they run side by side, in any order). */
function reviewerModel(answers: {
  correctness: string;
  security: string;
  tests: string;
}): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    model: "reviewers",
    requests,
    async complete(request): Promise<ModelResponse> {
      requests.push(request);
      const system = String(request.messages[0]?.content ?? "");
      const text = system.includes("for security")
        ? answers.security
        : system.includes("for tests")
          ? answers.tests
          : answers.correctness;
      return {
        message: { role: "assistant", content: text },
        finishReason: "stop",
        usage: { promptTokens: 50, completionTokens: 20, totalTokens: 70 },
        model: "reviewers",
        costUsd: 0.002,
        attempts: 1,
      };
    },
  };
}

/** What the reviewers were shown, all three requests' user messages together. */
function reviewedText(requests: readonly ModelRequest[]): string {
  return requests
    .flatMap((request) => request.messages.filter((message) => message.role === "user"))
    .map((message) => String(message.content ?? ""))
    .join("\n");
}

describe("runGitHubJob", () => {
  let harness: JobHarness;
  beforeEach(async () => {
    harness = await createJobHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  it("says plainly when the run made no change, and pushes nothing", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const model = createScriptedModel([{ text: "I could not find the problem." }]);
    const outcome = await runGitHubJob(harness.job("fix", issue), harness.deps(model));
    expect(outcome.status).toBe("no-change");
    expect(harness.finished).toContain("made no change");
    expect(harness.finished).toContain("@agentforge fix <what to do>");
    expect(harness.github.branchSha(OWNER, REPO, `agentforge/issue-${issue}`)).toBeNull();
  });

  it("reports a refused push with what to check", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    harness.github.setRefusePush(true);
    const model = createScriptedModel([{ calls: [EDIT] }, { text: "Fixed." }]);
    const outcome = await runGitHubJob(harness.job("fix", issue), harness.deps(model));
    expect(outcome.status).toBe("failed");
    expect(harness.finished).toContain("could not push");
    expect(harness.finished).toContain("contents: write");
    expect(harness.github.repository(OWNER, REPO).pulls.size).toBe(0);
  });

  it("opens a draft that does not close the issue when the tests still fail", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const model = createScriptedModel([{ calls: [BREAK] }, { text: "Changed the operator." }]);
    const outcome = await runGitHubJob(harness.job("fix", issue), harness.deps(model));
    expect(outcome.status).toBe("pull-request-opened");
    const pull = [...harness.github.repository(OWNER, REPO).pulls.values()][0]!;
    expect(pull.draft).toBe(true);
    expect(pull.body).toContain(`Refs #${issue}`);
    expect(pull.body).not.toContain(`Fixes #${issue}`);
    expect(harness.finished).toContain("tests still fail");
    const checks = harness.github.repository(OWNER, REPO).checkRuns;
    expect(checks.at(-1)?.["conclusion"]).toBe("failure");
  });

  it("ends with an explanation when the model cannot be reached", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const { ModelError } = await import("../../../../src/core/model/model-error.js");
    const model = createScriptedModel([
      { error: new ModelError("MODEL_UNAVAILABLE", "connection refused", false) },
    ]);
    const outcome = await runGitHubJob(harness.job("fix", issue), harness.deps(model));
    expect(outcome.status).toBe("failed");
    expect(harness.finished).toContain("could not be reached");
    expect(harness.finished).toContain("Nothing was pushed");
  });

  it("posts a plan as the final text", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const model = createScriptedModel([
      { calls: [{ name: "read_file", args: { path: "sum.js" } }] },
      { text: "1. Change `-` to `+` in sum.js.\n2. Add a test." },
    ]);
    const outcome = await runGitHubJob(harness.job("plan", issue), harness.deps(model));
    expect(outcome.status).toBe("plan-posted");
    expect(harness.finished).toContain("### Plan for #");
    expect(harness.finished).toContain("Change `-` to `+`");
    expect(harness.github.branchSha(OWNER, REPO, `agentforge/issue-${issue}`)).toBeNull();
  });

  it("reviews a pull request with three reviewers, places comments on the diff and does not repeat them", async () => {
    const number = await openPullRequest(harness);
    const finding = (filePath: string, line: number, title: string) => ({
      path: filePath,
      line,
      severity: "high",
      category: "correctness",
      title,
      body: "b is not checked for zero.",
    });
    const model = reviewerModel({
      correctness: `Here are my findings:\n\`\`\`json\n${JSON.stringify([finding("sum.js", 5, "Division by zero"), finding("test.js", 1, "A file outside the diff")])}\n\`\`\``,
      security: "[]",
      tests: "I think the tests are missing but I will not say it as JSON.",
    });
    const outcome = await runGitHubJob(harness.job("review", number), harness.deps(model));
    expect(outcome.status).toBe("review-posted");
    expect(harness.finished).toContain("Review posted with 2 finding(s)");
    const reviews = harness.github.repository(OWNER, REPO).reviews;
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.comments.map((comment) => [comment.path, comment.line])).toEqual([["sum.js", 5]]);
    expect(reviews[0]!.body).toContain("A file outside the diff");
    expect(reviews[0]!.body).toContain("tests_reviewer's answer was not a list of findings");
    expect(reviews[0]!.commitId).toBe(harness.github.branchSha(OWNER, REPO, "feature"));
    expect(harness.github.repository(OWNER, REPO).checkRuns.at(-1)?.["conclusion"]).toBe("failure");
    expect(model.requests.length).toBe(3);

    // `review full` reads the whole pull request again and repeats nothing it posted.
    await runGitHubJob(harness.job("review", number, { fullReview: true }), harness.deps(model));
    expect(reviews).toHaveLength(2);
    expect(reviews[1]!.comments).toEqual([]);
    expect(reviews[1]!.body).toContain("already reported");

    // A bare `review` of the head it already reviewed posts nothing and says how to ask for more.
    const before = model.requests.length;
    await runGitHubJob(harness.job("review", number), harness.deps(model));
    expect(reviews).toHaveLength(2);
    expect(model.requests.length).toBe(before);
    expect(harness.finished).toContain("Nothing new to review");
    expect(harness.finished).toContain("`@agentforge review full`");
  });

  it("reviews only the commits since its own last review, whoever else reviewed", async () => {
    const number = await openPullRequest(harness);
    const model = reviewerModel({ correctness: "[]", security: "[]", tests: "[]" });
    await runGitHubJob(harness.job("review", number), harness.deps(model));
    const reviews = harness.github.repository(OWNER, REPO).reviews;
    expect(reviews[0]!.body).toContain("Reviewed the whole pull request");
    const firstHead = harness.github.branchSha(OWNER, REPO, "feature")!;
    expect(reviewedText(model.requests)).toContain("+  return a / b;");

    pushFeatureCommit(
      harness,
      WITH_DIV.replace(
        "module.exports = { sum, div };",
        "const mul = (a, b) => a * b;\nmodule.exports = { sum, div, mul };",
      ),
      "Add mul",
    );
    const newHead = harness.github.branchSha(OWNER, REPO, "feature")!;
    // A person's review of the new head is not this bot's: it moves nothing.
    reviews.push({
      id: 9001,
      pullNumber: number,
      body: "LGTM",
      commitId: newHead,
      author: "alice",
      comments: [],
    });
    model.requests.length = 0;
    await runGitHubJob(harness.job("review", number), harness.deps(model));
    const text = reviewedText(model.requests);
    expect(text).toContain("+const mul = (a, b) => a * b;");
    expect(text).not.toContain("+  return a / b;");
    expect(reviews.at(-1)!.body).toContain(`Reviewed the commits since ${firstHead.slice(0, 7)}`);
    expect(reviews.at(-1)!.commitId).toBe(newHead);
  });

  it("knows its own earlier review by the login its token acts as, when that is not the commit author", async () => {
    // The Action with an App token: commits are authored as the workflow's bot, reviews posted as the App's.
    const number = await openPullRequest(harness);
    const model = reviewerModel({ correctness: "[]", security: "[]", tests: "[]" });
    const asActionWithAppToken = () => {
      const deps = harness.deps(model);
      return {
        ...deps,
        github: {
          ...deps.github,
          author: {
            name: "github-actions[bot]",
            email: "41898282+github-actions[bot]@users.noreply.github.com",
          },
          ownLogin: "agentforge[bot]",
        },
      };
    };
    await runGitHubJob(harness.job("review", number), asActionWithAppToken());
    const firstHead = harness.github.branchSha(OWNER, REPO, "feature")!;
    pushFeatureCommit(
      harness,
      WITH_DIV.replace("module.exports = { sum, div };", "module.exports = { div, sum };"),
      "Reorder",
    );
    await runGitHubJob(harness.job("review", number), asActionWithAppToken());
    const reviews = harness.github.repository(OWNER, REPO).reviews;
    expect(reviews.at(-1)!.body).toContain(`Reviewed the commits since ${firstHead.slice(0, 7)}`);
  });

  it("tells the model which file and line a review-thread request is about", async () => {
    const number = await openPullRequest(harness);
    const model = reviewerModel({ correctness: "It divides.", security: "", tests: "" });
    const outcome = await runGitHubJob(
      harness.job("request", number, {
        instructions: "why is this here?",
        thread: { path: "sum.js", line: 5 },
      }),
      harness.deps(model),
    );
    expect(outcome.status).toBe("answered");
    expect(reviewedText(model.requests)).toContain("review thread on `sum.js` line 5");
    expect(harness.finished).toContain("It divides.");
  });

  it("refuses to start on an invalid repository config and names the key", async () => {
    const bare = harness.github.repository(OWNER, REPO).bareDir;
    const work = mkdtempSync(path.join(tmpdir(), "agentforge-config-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", args, {
          cwd: work,
          encoding: "utf8",
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: "b",
            GIT_AUTHOR_EMAIL: "b@example.com",
            GIT_COMMITTER_NAME: "b",
            GIT_COMMITTER_EMAIL: "b@example.com",
          },
        });
      git("clone", "-q", bare, ".");
      writeFileSync(path.join(work, ".github/agentforge.yml"), "review:\n  max_comments: lots\n");
      git("commit", "-qam", "Break the config");
      git("push", "-q", "origin", "main");
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const issue = harness.github.addIssue(OWNER, REPO, { title: "x", body: "", author: "alice" });
    const outcome = await runGitHubJob(harness.job("fix", issue), harness.deps(createScriptedModel([])));
    expect(outcome.status).toBe("failed");
    expect(harness.finished).toContain("review.max_comments");
  });
});
