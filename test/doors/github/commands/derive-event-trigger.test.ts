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
    expect(deriveEventTrigger("issues.labeled", example("issues", "labeled"), options)).toBeNull();
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
