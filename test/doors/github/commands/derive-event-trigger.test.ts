import { describe, expect, it } from "@jest/globals";
import { deriveEventTrigger } from "../../../../src/doors/github/commands/derive-event-trigger.js";
import { deriveActionPlan } from "../../../../src/doors/action/derive-action-plan.js";
import { edit, webhookExample as example } from "../../action/webhook-example.js";

const app = { login: "agentforge[bot]", id: 1, type: "Bot" };
const options = { appLogins: ["agentforge[bot]"] };

function assigned(assignee: object, sender?: object) {
  const payload = edit(example("issues", "assigned"), { assignee });
  if (sender !== undefined) edit(payload, { sender });
  return payload;
}

function reviewRequested(reviewer: object | undefined) {
  return edit(example("pull_request", "review_requested"), { requested_reviewer: reviewer });
}

describe("deriveEventTrigger", () => {
  it("turns an issue assigned to the app into a fix for whoever assigned it", () => {
    expect(deriveEventTrigger("issues.assigned", assigned(app), options)).toEqual({
      kind: "job",
      trigger: "assignment",
      command: { kind: "fix" },
      number: 1,
      isPullRequest: false,
      requester: expect.objectContaining({ login: "Codertocat" }),
      headSha: null,
      label: null,
    });
  });

  it("matches the app's login without regard to case, and never a person with the app's bare name", () => {
    expect(
      deriveEventTrigger("issues.assigned", assigned({ ...app, login: "AgentForge[bot]" }), options),
    ).toMatchObject({
      kind: "job",
    });
    expect(
      deriveEventTrigger("issues.assigned", assigned({ login: "agentforge", type: "User" }), options),
    ).toEqual({
      kind: "nothing",
      reason: "the issue was assigned to someone else",
    });
  });

  it("does nothing when a bot assigns, or the issue is closed", () => {
    expect(
      deriveEventTrigger("issues.assigned", assigned(app, { login: "renovate[bot]", type: "Bot" }), options),
    ).toEqual({
      kind: "nothing",
      reason: "assigned by the bot renovate[bot]",
    });
    const closed = edit(assigned(app), { "issue.state": "closed" });
    expect(deriveEventTrigger("issues.assigned", closed, options)).toMatchObject({ kind: "nothing" });
  });

  it("turns the app requested as a reviewer into a review of the head, and a team request into nothing", () => {
    const payload = reviewRequested(app);
    expect(deriveEventTrigger("pull_request.review_requested", payload, options)).toMatchObject({
      kind: "job",
      trigger: "review-request",
      command: { kind: "review" },
      number: (payload["pull_request"] as { number: number }).number,
      headSha: (payload["pull_request"] as { head: { sha: string } }).head.sha,
    });
    expect(deriveEventTrigger("pull_request.review_requested", reviewRequested(undefined), options)).toEqual({
      kind: "nothing",
      reason: "the review was requested from someone else",
    });
  });

  it("leaves other events to the other derivations", () => {
    expect(deriveEventTrigger("issues.opened", example("issues", "opened"), options)).toBeNull();
    expect(deriveEventTrigger("pull_request.opened", example("pull_request", "opened"), options)).toBeNull();
  });

  it("starts a fix on an issue and a review on a pull request for the trigger label only", () => {
    const labelled = { ...options, triggerLabel: "AI Fix" };
    const onIssue = edit(example("issues", "labeled"), { "label.name": "ai fix" });
    expect(deriveEventTrigger("issues.labeled", onIssue, labelled)).toEqual({
      kind: "job",
      trigger: "label",
      command: { kind: "fix" },
      number: 1,
      isPullRequest: false,
      requester: expect.objectContaining({ login: "Codertocat" }),
      headSha: null,
      label: "ai fix",
    });
    const onPull = edit(example("pull_request", "labeled"), { "label.name": "AI FIX" });
    expect(deriveEventTrigger("pull_request.labeled", onPull, labelled)).toMatchObject({
      kind: "job",
      trigger: "label",
      command: { kind: "review" },
      isPullRequest: true,
    });
    expect(deriveEventTrigger("issues.labeled", onIssue, options)).toEqual({
      kind: "nothing",
      reason: "no trigger label is configured",
    });
    const other = edit(example("issues", "labeled"), { "label.name": "bug" });
    expect(deriveEventTrigger("issues.labeled", other, labelled)).toEqual({
      kind: "nothing",
      reason: 'the label added is not the trigger label "AI Fix"',
    });
  });

  it("starts nothing for a label a bot added, on a closed issue, or on an ignored conversation", () => {
    const labelled = { ...options, triggerLabel: "ai fix" };
    const byBot = edit(example("issues", "labeled"), {
      "label.name": "ai fix",
      sender: { login: "renovate[bot]", type: "Bot" },
    });
    expect(deriveEventTrigger("issues.labeled", byBot, labelled)).toEqual({
      kind: "nothing",
      reason: "labelled by the bot renovate[bot]",
    });
    const closed = edit(example("issues", "labeled"), { "label.name": "ai fix", "issue.state": "closed" });
    expect(deriveEventTrigger("issues.labeled", closed, labelled)).toMatchObject({ kind: "nothing" });
    const ignored = edit(example("issues", "labeled"), {
      "label.name": "ai fix",
      "issue.labels": [{ name: "ai fix" }, { name: "agentforge: ignored" }],
    });
    expect(deriveEventTrigger("issues.labeled", ignored, labelled)).toMatchObject({
      kind: "nothing",
      reason: expect.stringContaining("ignore"),
    });
  });

  it("gives the Action the label trigger and the trigger phrase it is configured with", () => {
    const onIssue = edit(example("issues", "labeled"), { "label.name": "ai fix" });
    const event = { name: "issues", payload: onIssue, owner: "Codertocat", repo: "Hello-World" };
    expect(
      deriveActionPlan({ mode: "auto", prompt: undefined, triggerLabel: "ai fix" }, event),
    ).toMatchObject({
      success: true,
      value: { kind: "job", job: { kind: "fix", number: 1 }, needsWriteAccess: true },
    });
    expect(deriveActionPlan({ mode: "auto", prompt: undefined }, event)).toEqual({
      success: true,
      value: { kind: "skip", reason: "no trigger label is configured" },
    });
    const comment = (body: string) => ({
      name: "issue_comment",
      payload: edit(example("issue_comment", "created"), {
        "comment.body": body,
        "issue.pull_request": undefined,
      }),
      owner: "Codertocat",
      repo: "Hello-World",
    });
    const named = { mode: "auto" as const, prompt: undefined, triggerName: "my-bot" };
    expect(deriveActionPlan(named, comment("@my-bot fix it"))).toMatchObject({
      value: { kind: "job", job: { kind: "fix" } },
    });
    expect(deriveActionPlan(named, comment("@agentforge fix it"))).toEqual({
      success: true,
      value: { kind: "skip", reason: "the comment does not address @my-bot" },
    });
    const assignedToNamed = assigned({ login: "my-bot[bot]", type: "Bot" });
    expect(
      deriveActionPlan(named, { name: "issues", payload: assignedToNamed, owner: "o", repo: "r" }),
    ).toMatchObject({ value: { kind: "job", job: { kind: "fix" } } });
  });

  it("gives the Action the same job the App enqueues", () => {
    const payload = assigned(app);
    const shared = deriveEventTrigger("issues.assigned", payload, options);
    const plan = deriveActionPlan(
      { mode: "auto", prompt: undefined },
      { name: "issues", payload, owner: "Codertocat", repo: "Hello-World" },
    );
    expect(shared?.kind).toBe("job");
    expect(plan).toEqual({
      success: true,
      value: {
        kind: "job",
        job: {
          kind: "fix",
          owner: "Codertocat",
          repo: "Hello-World",
          number: 1,
          isPullRequest: false,
          requester: "Codertocat",
        },
        requester: expect.objectContaining({ login: "Codertocat" }),
        needsWriteAccess: true,
      },
    });
    const review = deriveActionPlan(
      { mode: "auto", prompt: undefined },
      { name: "pull_request", payload: reviewRequested(app), owner: "Codertocat", repo: "Hello-World" },
    );
    expect(review.success && review.value).toMatchObject({ kind: "job", job: { kind: "review" } });
    const toPerson = deriveActionPlan(
      { mode: "auto", prompt: undefined },
      { name: "pull_request", payload: reviewRequested({ login: "octocat" }), owner: "o", repo: "r" },
    );
    expect(toPerson).toEqual({
      success: true,
      value: { kind: "skip", reason: "the review was requested from someone else" },
    });
  });
});
