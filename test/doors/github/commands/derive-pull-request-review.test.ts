import { describe, expect, it } from "@jest/globals";
import { derivePullRequestReview } from "../../../../src/doors/github/commands/derive-pull-request-review.js";

const pull = { number: 4, state: "open", head: { sha: "b".repeat(40) }, labels: [] };
const person = { login: "octocat", type: "User" };

describe("derivePullRequestReview", () => {
  it("reviews a push from where it started, and says why nothing is reviewed otherwise", () => {
    expect(
      derivePullRequestReview({
        action: "synchronize",
        pull_request: pull,
        before: "a".repeat(40),
        sender: person,
      }),
    ).toMatchObject({
      kind: "review",
      beforeSha: "a".repeat(40),
      draft: false,
    });
    expect(derivePullRequestReview({ action: "reopened", pull_request: pull, sender: person })).toMatchObject(
      { kind: "review", beforeSha: null },
    );
    expect(derivePullRequestReview({ action: "closed", pull_request: pull, sender: person })).toMatchObject({
      cause: "not-a-review-action",
    });
    expect(
      derivePullRequestReview({
        action: "opened",
        pull_request: pull,
        sender: { login: "agentforge[bot]", type: "Bot" },
      }),
    ).toMatchObject({ cause: "bot" });
    expect(
      derivePullRequestReview({
        action: "opened",
        pull_request: { ...pull, state: "closed" },
        sender: person,
      }),
    ).toMatchObject({ cause: "closed" });
    expect(
      derivePullRequestReview({
        action: "opened",
        pull_request: { ...pull, labels: [{ name: "agentforge: paused" }] },
        sender: person,
      }),
    ).toMatchObject({ cause: "paused" });
  });
});
