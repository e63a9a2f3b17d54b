import { describe, expect, it } from "@jest/globals";
import { deriveActionPlan, type ActionEvent } from "../../../src/doors/action/derive-action-plan.js";
import { edit, read, webhookExample as example } from "./webhook-example.js";

function commentEvent(
  body: string,
  options: { onPullRequest?: boolean; senderType?: string } = {},
): ActionEvent {
  const payload = edit(example("issue_comment", "created"), { "comment.body": body });
  if (options.onPullRequest)
    edit(payload, { "issue.pull_request": { url: "https://api.github.com/repos/o/r/pulls/1" } });
  if (options.senderType) edit(payload, { "sender.type": options.senderType });
  return { name: "issue_comment", payload, owner: "Codertocat", repo: "Hello-World" };
}

const auto = { mode: "auto" as const, prompt: undefined };

describe("deriveActionPlan in auto mode", () => {
  it("turns a fix command on an issue into a fix job that needs write access", () => {
    const result = deriveActionPlan(auto, commentEvent("@agentforge fix the greeting, please use a comma"));
    expect(result).toEqual({
      success: true,
      value: expect.objectContaining({
        kind: "job",
        needsWriteAccess: true,
        job: expect.objectContaining({
          kind: "fix",
          number: 1,
          isPullRequest: false,
          requester: "Codertocat",
          instructions: "the greeting, please use a comma",
        }),
      }),
    });
  });

  it("turns a free request on a pull request into a request job", () => {
    const result = deriveActionPlan(
      auto,
      commentEvent("@agentforge rename the helper", { onPullRequest: true }),
    );
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      job: { kind: "request", isPullRequest: true, instructions: "rename the helper" },
    });
  });

  it("turns `fix ci` on a pull request into a fix-ci job a person with write access asked for, and answers it on an issue", () => {
    const result = deriveActionPlan(auto, commentEvent("@agentforge fix ci", { onPullRequest: true }));
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      needsWriteAccess: true,
      job: { kind: "fix-ci", isPullRequest: true, requester: "Codertocat" },
    });
    expect(result.success && result.value.kind === "job" && result.value.job.automatic).toBeFalsy();
    const onIssue = deriveActionPlan(auto, commentEvent("@agentforge fix ci"));
    expect(onIssue.success && onIssue.value).toMatchObject({ kind: "reply" });
  });

  it("turns a failed workflow run on a pull request's head into an automatic fix-ci, and skips a green one", () => {
    const pulls = (read(example("check_suite", "completed"), "check_suite") as { pull_requests: unknown[] })
      .pull_requests;
    const run = (conclusion: string): ActionEvent => ({
      name: "workflow_run",
      payload: edit(example("workflow_run", "completed"), {
        "workflow_run.conclusion": conclusion,
        "workflow_run.head_sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        "workflow_run.pull_requests": pulls,
        "repository.id": 186853002,
      }),
      owner: "Codertocat",
      repo: "Hello-World",
    });
    expect(deriveActionPlan(auto, run("failure"))).toEqual({
      success: true,
      value: {
        kind: "job",
        needsWriteAccess: false,
        requester: { login: "github-actions[bot]", type: "Bot" },
        job: expect.objectContaining({
          kind: "fix-ci",
          number: 2,
          automatic: true,
          headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        }),
      },
    });
    expect(deriveActionPlan(auto, run("success"))).toMatchObject({ success: true, value: { kind: "skip" } });
  });

  it("turns fix on a pull request into a change of its branch, not a new pull request", () => {
    const result = deriveActionPlan(auto, commentEvent("@agentforge fix this", { onPullRequest: true }));
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      job: { kind: "request", isPullRequest: true, instructions: "fix this" },
    });
    expect(result.success && result.value).not.toHaveProperty("commentPlace");
  });

  it.each([
    ["fix on an issue", "@agentforge fix this with gpt-4.1", false, { kind: "fix", model: "gpt-4.1" }],
    [
      "fix with instructions on a pull request",
      "@agentforge fix the typo with openai/gpt-5",
      true,
      { kind: "request", model: "openai/gpt-5" },
    ],
    ["plan", "@agentforge plan it with o3", false, { kind: "plan", model: "o3" }],
    [
      "review",
      "@agentforge review full with qwen2.5-coder:7b",
      true,
      { kind: "review", fullReview: true, model: "qwen2.5-coder:7b" },
    ],
    [
      "request",
      "@agentforge rename the helper with gpt-4.1",
      true,
      { kind: "request", instructions: "rename the helper", model: "gpt-4.1" },
    ],
  ])("carries the model chosen with `with <model>`: %s", (_title, body, onPullRequest, job) => {
    const result = deriveActionPlan(auto, commentEvent(body, { onPullRequest }));
    expect(result.success && result.value).toMatchObject({ kind: "job", job });
  });

  it("chooses no model for a plain word after with", () => {
    const result = deriveActionPlan(auto, commentEvent("@agentforge fix the crash with retries"));
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      job: { kind: "fix", instructions: "the crash with retries" },
    });
    expect(result.success && result.value.kind === "job" && result.value.job).not.toHaveProperty("model");
  });

  it("answers a command in a review thread in that thread, and tells the job the file and line", () => {
    const payload = edit(example("pull_request_review_comment", "created"), {
      "comment.body": "@agentforge why is this here?",
      "comment.line": 7,
    });
    const event = { name: "pull_request_review_comment", payload, owner: "Codertocat", repo: "Hello-World" };
    const comment = read(payload, "comment") as { id: number; path: string };
    expect(deriveActionPlan(auto, event)).toEqual({
      success: true,
      value: expect.objectContaining({
        kind: "job",
        commentPlace: "review-comment",
        commentId: comment.id,
        job: expect.objectContaining({
          kind: "request",
          isPullRequest: true,
          instructions: "why is this here?",
          thread: { path: comment.path, line: 7 },
        }),
      }),
    });
    edit(payload, { "comment.body": "@agentforge help" });
    expect(deriveActionPlan(auto, event)).toMatchObject({
      success: true,
      value: { kind: "reply", commentPlace: "review-comment" },
    });
  });

  it("answers a review request on an issue instead of running", () => {
    const result = deriveActionPlan(auto, commentEvent("@agentforge review"));
    expect(result.success && result.value).toMatchObject({ kind: "reply" });
    expect(result.success && result.value.kind === "reply" && result.value.text).toContain(
      "works on pull requests",
    );
  });

  it("skips comments that do not address the bot, bots, and edits", () => {
    const longerName = deriveActionPlan(auto, commentEvent("thanks @agentforgery, fix this"));
    expect(longerName.success && longerName.value.kind).toBe("skip");
    const plain = deriveActionPlan(auto, commentEvent("looks good"));
    expect(plain.success && plain.value.kind).toBe("skip");
    const bot = deriveActionPlan(auto, commentEvent("@agentforge fix this", { senderType: "Bot" }));
    expect(bot.success && bot.value.kind).toBe("skip");
    const edited = edit(example("issue_comment", "edited"), { "comment.body": "@agentforge fix this" });
    const result = deriveActionPlan(auto, { name: "issue_comment", payload: edited, owner: "o", repo: "r" });
    expect(result.success && result.value.kind).toBe("skip");
  });

  it("reviews an opened pull request from anyone, and skips drafts and closed ones", () => {
    const opened = example("pull_request", "opened");
    const result = deriveActionPlan(auto, { name: "pull_request", payload: opened, owner: "o", repo: "r" });
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      needsWriteAccess: false,
      job: {
        kind: "review",
        number: read(opened, "pull_request.number"),
        headSha: read(opened, "pull_request.head.sha"),
      },
    });
    const draft = edit(example("pull_request", "opened"), { "pull_request.draft": true });
    const skipped = deriveActionPlan(auto, { name: "pull_request", payload: draft, owner: "o", repo: "r" });
    expect(skipped.success && skipped.value.kind).toBe("skip");
    const closed = example("pull_request", "closed");
    const closedResult = deriveActionPlan(auto, {
      name: "pull_request",
      payload: closed,
      owner: "o",
      repo: "r",
    });
    expect(closedResult.success && closedResult.value.kind).toBe("skip");
  });

  it("keeps the head before the push on synchronize", () => {
    const payload = example("pull_request", "synchronize");
    const result = deriveActionPlan(auto, { name: "pull_request", payload, owner: "o", repo: "r" });
    expect(result.success && result.value.kind === "job" && result.value.job.beforeSha).toBe(
      payload["before"],
    );
  });

  it("takes the dispatch prompt from the input or the dispatch payload", () => {
    const payload = { inputs: { prompt: "update the changelog" } };
    const fromPayload = deriveActionPlan(auto, { name: "workflow_dispatch", payload, owner: "o", repo: "r" });
    expect(fromPayload.success && fromPayload.value).toEqual({ kind: "run", prompt: "update the changelog" });
    const missing = deriveActionPlan(auto, {
      name: "workflow_dispatch",
      payload: { inputs: {} },
      owner: "o",
      repo: "r",
    });
    expect(missing.success ? "" : missing.error).toContain('"prompt"');
  });

  it("refuses pull_request_target in every mode", () => {
    const payload = example("pull_request", "opened");
    for (const mode of ["auto", "review", "run"] as const) {
      const result = deriveActionPlan(
        { mode, prompt: "x" },
        { name: "pull_request_target", payload, owner: "o", repo: "r" },
      );
      expect(result.success ? "" : result.error).toContain("pull_request_target is not supported");
    }
  });

  it("fails with the field name when a payload does not fit", () => {
    const result = deriveActionPlan(auto, {
      name: "issue_comment",
      payload: { action: "created" },
      owner: "o",
      repo: "r",
    });
    expect(result.success ? "" : result.error).toMatch(/issue_comment event payload .*issue/);
  });
});

describe("deriveActionPlan in explicit modes", () => {
  it("run mode needs a prompt", () => {
    const result = deriveActionPlan(
      { mode: "run", prompt: undefined },
      { name: "push", payload: {}, owner: "o", repo: "r" },
    );
    expect(result.success ? "" : result.error).toContain('input "prompt" is required in run mode');
  });

  it("fix on an opened issue uses the prompt as instructions and needs write access", () => {
    const payload = example("issues", "opened");
    const result = deriveActionPlan(
      { mode: "fix", prompt: "keep it short" },
      { name: "issues", payload, owner: "o", repo: "r" },
    );
    expect(result.success && result.value).toMatchObject({
      kind: "job",
      needsWriteAccess: true,
      job: { kind: "fix", number: read(payload, "issue.number"), instructions: "keep it short" },
    });
  });

  it("review needs a pull request", () => {
    const payload = example("issues", "opened");
    const result = deriveActionPlan(
      { mode: "review", prompt: undefined },
      { name: "issues", payload, owner: "o", repo: "r" },
    );
    expect(result.success ? "" : result.error).toContain("mode review needs a pull request");
    const push = deriveActionPlan(
      { mode: "fix", prompt: undefined },
      { name: "push", payload: {}, owner: "o", repo: "r" },
    );
    expect(push.success ? "" : push.error).toContain("push event has none");
  });
});
