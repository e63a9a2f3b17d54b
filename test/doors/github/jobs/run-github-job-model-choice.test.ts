import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { ModelClient, ModelResponse } from "../../../../src/core/model/model-types.js";
import { modelNotAllowedMessage, usageLine } from "../../../../src/doors/github/jobs/job-messages.js";
import { runGitHubJob } from "../../../../src/doors/github/jobs/run-github-job.js";
import { createScriptedModel, type ScriptedTurn } from "../../../support/scripted-model.js";
import { createJobHarness, OWNER, REPO, type JobHarness } from "./job-harness.js";
import { openPullRequest } from "./open-pull-request.js";

const EDIT = {
  name: "edit_file",
  args: { path: "sum.js", old_string: "return a - b;", new_string: "return a + b;" },
};

/** A scripted model that answers under another name, as a client of a chosen model would. */
function namedModel(name: string, script: readonly ScriptedTurn[]) {
  const scripted = createScriptedModel(script);
  return Object.assign(scripted, { model: name });
}

/** Every reviewer answers with no finding; counts its calls. */
function quietReviewers(name: string): ModelClient & { calls: number } {
  const client = {
    model: name,
    calls: 0,
    complete(): Promise<ModelResponse> {
      client.calls += 1;
      return Promise.resolve({
        message: { role: "assistant", content: '{"findings": []}' },
        finishReason: "stop",
        usage: { promptTokens: 50, completionTokens: 20, totalTokens: 70 },
        model: name,
        costUsd: 0.001,
        attempts: 1,
      });
    },
  };
  return client;
}

describe("the refusal of a model the operator does not allow", () => {
  it.each([
    [
      "several allowed",
      "gpt-9",
      ["scripted", "gpt-4.1"],
      "`gpt-9` is not one of the models this installation allows: scripted, gpt-4.1.",
    ],
    ["one allowed", "o3", ["scripted"], "`o3` is not one of the models this installation allows: scripted."],
    ["none allowed", "o3", [], "`o3` is not one of the models this installation allows: (none)."],
  ])("%s", (_title, model, allowed, text) => {
    expect(modelNotAllowedMessage(model, allowed)).toBe(text);
  });

  it("names the model in the usage line when the run says which", () => {
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    expect(usageLine({ turns: 2, usage, costUsd: null, model: "gpt-4.1" })).toBe(
      "`gpt-4.1` · 2 turns · 15 tokens · cost unknown",
    );
  });
});

describe("a job with a chosen model", () => {
  let harness: JobHarness;
  beforeEach(async () => {
    harness = await createJobHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  it("ends at once with the allowed list when the model is not allowed, and nothing runs", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const own = createScriptedModel([{ calls: [EDIT] }, { text: "Fixed." }]);
    const chosen = namedModel("gpt-unlisted-1", [{ text: "should not run" }]);
    const requestsBefore = harness.github.requests.length;
    const outcome = await runGitHubJob(
      harness.job("fix", issue, { model: "gpt-unlisted-1" }),
      harness.deps(own, {
        agent: { allowedModels: ["scripted", "other-model"] },
        modelFor: () => chosen,
      }),
    );
    expect(outcome.status).toBe("failed");
    expect(harness.updates).toEqual([
      "`gpt-unlisted-1` is not one of the models this installation allows: scripted, other-model.",
    ]);
    expect(own.requests).toHaveLength(0);
    expect(chosen.requests).toHaveLength(0);
    // Not even the repository was read: the refusal comes before any work.
    expect(harness.github.requests.slice(requestsBefore)).toEqual([]);
    expect(harness.github.branchSha(OWNER, REPO, `agentforge/issue-${issue}`)).toBeNull();
  });

  it("runs a fix with an allowed model and names it in the final comment", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const own = createScriptedModel([{ text: "the runner's own model should not be asked" }]);
    const chosen = namedModel("other-model", [{ calls: [EDIT] }, { text: "Fixed the operator." }]);
    const asked: string[] = [];
    const outcome = await runGitHubJob(
      harness.job("fix", issue, { model: "other-model" }),
      harness.deps(own, {
        agent: { allowedModels: ["scripted", "other-model"] },
        modelFor: (name) => {
          asked.push(name);
          return chosen;
        },
      }),
    );
    expect(outcome.status).toBe("pull-request-opened");
    expect(asked).toEqual(["other-model"]);
    expect(own.requests).toHaveLength(0);
    expect(chosen.requests).toHaveLength(2);
    expect(harness.finished).toContain("`other-model` · 2 turns");
  });

  it("plans with an allowed model", async () => {
    const issue = harness.github.addIssue(OWNER, REPO, { title: "sum is wrong", body: "", author: "alice" });
    const own = createScriptedModel([{ text: "the runner's own model should not be asked" }]);
    const chosen = namedModel("gpt-4.1", [{ text: "1. Change `-` to `+`." }]);
    const outcome = await runGitHubJob(
      harness.job("plan", issue, { model: "gpt-4.1" }),
      harness.deps(own, { agent: { allowedModels: ["scripted", "gpt-4.1"] }, modelFor: () => chosen }),
    );
    expect(outcome.status).toBe("plan-posted");
    expect(own.requests).toHaveLength(0);
    expect(chosen.requests).toHaveLength(1);
    expect(harness.finished).toContain("`gpt-4.1` · 1 turn");
  });

  it("gives a review's panel the chosen model", async () => {
    const number = await openPullRequest(harness);
    const own = quietReviewers("scripted");
    const chosen = quietReviewers("other-reviewers");
    const outcome = await runGitHubJob(
      harness.job("review", number, { model: "other-reviewers" }),
      harness.deps(own, {
        agent: {
          allowedModels: ["scripted", "other-reviewers"],
          modelFor: (name) => (name === "other-reviewers" ? chosen : own),
        },
      }),
    );
    expect(outcome.status).toBe("review-posted");
    expect(own.calls).toBe(0);
    expect(chosen.calls).toBe(3);
    expect(harness.finished).toContain("`other-reviewers` · ");
  });
});
