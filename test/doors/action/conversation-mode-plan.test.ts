import { describe, expect, it } from "@jest/globals";
import { IGNORED_LABEL, PAUSED_LABEL } from "../../../src/doors/github/commands/conversation-mode.js";
import { deriveActionPlan } from "../../../src/doors/action/derive-action-plan.js";
import { edit, webhookExample as example } from "./webhook-example.js";

const auto = { mode: "auto" as const, prompt: undefined };
const on = (name: string, payload: Record<string, unknown>) => ({
  name,
  payload,
  owner: "Codertocat",
  repo: "Hello-World",
});

describe("the Action and the conversation's mode", () => {
  it("turns `pause` into a reply that first changes the labels", () => {
    const payload = edit(example("issue_comment", "created"), { "comment.body": "@agentforge pause" });
    expect(deriveActionPlan(auto, on("issue_comment", payload))).toEqual({
      success: true,
      value: expect.objectContaining({ kind: "reply", modeChange: { command: "pause", current: "active" } }),
    });
  });

  it("declines a fix in an ignored conversation and points to resume", () => {
    const payload = edit(example("issue_comment", "created"), {
      "comment.body": "@agentforge fix this",
      "issue.labels": [{ name: IGNORED_LABEL }],
    });
    const plan = deriveActionPlan(auto, on("issue_comment", payload));
    expect(plan.success && plan.value.kind === "reply" && plan.value.text).toContain("@agentforge resume");
  });

  it("skips the automatic review of a paused pull request, and reviews it without the label", () => {
    const paused = edit(example("pull_request", "synchronize"), {
      "pull_request.labels": [{ name: PAUSED_LABEL }],
    });
    expect(deriveActionPlan(auto, on("pull_request", paused)).success).toBe(true);
    expect(deriveActionPlan(auto, on("pull_request", paused))).toMatchObject({ value: { kind: "skip" } });
    const active = edit(example("pull_request", "synchronize"), { "pull_request.labels": [] });
    expect(deriveActionPlan(auto, on("pull_request", active))).toMatchObject({ value: { kind: "job" } });
  });
});
