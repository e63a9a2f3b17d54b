import { describe, expect, it } from "@jest/globals";
import {
  deriveCommentRequest,
  type CommentForRequest,
} from "../../../../src/doors/github/commands/derive-comment-request.js";
import { deriveActionPlan } from "../../../../src/doors/action/derive-action-plan.js";
import { edit, webhookExample as example } from "../../action/webhook-example.js";

const person = { login: "octocat", type: "User" };

function comment(body: string, extra: Partial<CommentForRequest> = {}): CommentForRequest {
  return { body, author: person, isPullRequest: false, mode: "active", ...extra };
}

describe("deriveCommentRequest", () => {
  it("asks nothing of a bot, whatever it wrote, and nothing of a comment that does not address the app", () => {
    expect(
      deriveCommentRequest(
        comment("@agentforge fix", { author: { login: "ci[bot]", type: "Bot" } }),
        "agentforge",
      ),
    ).toEqual({
      kind: "nothing",
      cause: "bot",
      reason: "comment by the bot ci[bot]",
    });
    expect(deriveCommentRequest(comment("looks good to me"), "agentforge")).toMatchObject({
      kind: "nothing",
      cause: "no-mention",
    });
  });

  it("turns a command into work, and a fix on a pull request keeps its words for the door", () => {
    expect(deriveCommentRequest(comment("@agentforge fix the flaky test"), "agentforge")).toEqual({
      kind: "job",
      command: { kind: "fix", instructions: "the flaky test" },
    });
    expect(
      deriveCommentRequest(comment("@agentforge review full", { isPullRequest: true }), "agentforge"),
    ).toEqual({ kind: "job", command: { kind: "review", full: true } });
  });

  it("answers a review asked on an issue instead of running one", () => {
    const request = deriveCommentRequest(comment("@agentforge review"), "agentforge");
    expect(request).toMatchObject({ kind: "reply", reason: "review on an issue" });
    expect(request.kind === "reply" && request.text).toContain("works on pull requests");
  });

  it("refuses work while the conversation is ignored, but still hears resume", () => {
    expect(deriveCommentRequest(comment("@agentforge fix", { mode: "ignored" }), "agentforge")).toMatchObject(
      {
        kind: "reply",
        reason: "the conversation is ignored",
      },
    );
    expect(deriveCommentRequest(comment("@agentforge resume", { mode: "ignored" }), "agentforge")).toEqual({
      kind: "mode",
      command: "resume",
      current: "ignored",
    });
  });

  it("answers help and a command it cannot read, and passes stop to the door", () => {
    expect(deriveCommentRequest(comment("@agentforge help"), "agentforge")).toMatchObject({
      kind: "reply",
      reason: "help",
    });
    expect(deriveCommentRequest(comment("@agentforge"), "agentforge")).toMatchObject({
      kind: "reply",
      reason: "not understood",
    });
    expect(deriveCommentRequest(comment("@agentforge stop"), "agentforge")).toEqual({ kind: "stop" });
  });

  it("uses the app's own name: a mention of another app is not a command", () => {
    expect(deriveCommentRequest(comment("@agentforge fix"), "otherbot")).toMatchObject({ kind: "nothing" });
    expect(deriveCommentRequest(comment("@otherbot fix"), "otherbot")).toMatchObject({ kind: "job" });
  });

  it("is what the Action plans from: the same comment gives the Action the same answer", () => {
    const cases: readonly [string, string][] = [
      ["@agentforge help", "reply"],
      ["@agentforge review", "reply"],
      ["@agentforge fix it", "job"],
      ["nothing for the bot", "skip"],
    ];
    for (const [body, kind] of cases) {
      const payload = edit(example("issue_comment", "created"), {
        "comment.body": body,
        "issue.pull_request": undefined,
      });
      const plan = deriveActionPlan(
        { mode: "auto", prompt: undefined },
        { name: "issue_comment", owner: "Codertocat", repo: "Hello-World", payload },
      );
      expect(plan).toMatchObject({ success: true, value: { kind } });
      const derived = deriveCommentRequest(comment(body), "agentforge");
      expect(derived.kind === "nothing" ? "skip" : derived.kind).toBe(kind);
    }
  });
});
