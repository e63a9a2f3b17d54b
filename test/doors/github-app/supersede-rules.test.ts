import { describe, expect, it } from "@jest/globals";
import type { GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { supersedeRulesFor } from "../../../src/doors/github-app/supersede-rules.js";

function request(overrides: Partial<GitHubRequest>): GitHubRequest {
  return {
    deliveryId: "d-1",
    eventName: "pull_request",
    installationId: 1,
    owner: "octo",
    repo: "demo",
    number: 7,
    isPullRequest: true,
    command: { kind: "review" },
    trigger: "pull-request",
    requester: "alice",
    commentId: null,
    headSha: "abcdef1234567890abcdef1234567890abcdef12",
    beforeSha: "1234567890abcdef1234567890abcdef12345678",
    reviewComment: null,
    receivedAt: 0,
    ...overrides,
  };
}

describe("supersedeRulesFor: which newer request cancels which running one", () => {
  it("lets a push cancel only a running review, naming the new head", () => {
    expect(supersedeRulesFor(request({}))).toEqual({
      kind: "review",
      supersedeRunning: { kinds: ["review"], reason: "a newer push abcdef1 arrived; reviewing that instead" },
    });
  });

  it("lets a newer fix or request on a pull request cancel a running fix or request", () => {
    const fix = request({ trigger: "comment", command: { kind: "fix" }, beforeSha: null, requester: "bob" });
    expect(supersedeRulesFor(fix)).toEqual({
      kind: "fix",
      supersedeRunning: {
        kinds: ["fix", "request"],
        reason: "a newer `fix` request by @bob arrived; running that instead",
      },
    });
    const asked = request({
      trigger: "review-comment",
      command: { kind: "request", text: "why?" },
      beforeSha: null,
    });
    expect(supersedeRulesFor(asked).supersedeRunning?.kinds).toEqual(["fix", "request"]);
  });

  it("cancels nothing for a review command, an opened pull request, a plan, or a fix on an issue", () => {
    const cases = [
      request({ trigger: "comment", beforeSha: null }),
      request({ beforeSha: null }),
      request({ trigger: "comment", command: { kind: "plan" }, beforeSha: null }),
      request({ trigger: "comment", command: { kind: "fix" }, isPullRequest: false, beforeSha: null }),
    ];
    for (const entry of cases) expect(supersedeRulesFor(entry).supersedeRunning).toBeUndefined();
    expect(cases.map((entry) => supersedeRulesFor(entry).kind)).toEqual(["review", "review", "plan", "fix"]);
  });
});
