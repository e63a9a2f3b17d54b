import { describe, expect, it } from "@jest/globals";
import { toTaskOutcome } from "../../../../src/doors/github-app/to-task-outcome.js";

describe("toTaskOutcome", () => {
  it("stores what a person or a metric needs, not where the trace lies on this worker's disk", () => {
    const outcome = toTaskOutcome({
      status: "pull-request-opened",
      summary: "opened #13",
      url: "https://github.test/octo/app/pull/13",
      pullRequestNumber: 13,
      branch: "agentforge/issue-12",
      tracePath: "/var/lib/agentforge/tasks/t/trace.jsonl",
      runId: "run-1",
      totalTokens: 1200,
      costUsd: 0.01,
    });
    expect(outcome).toEqual({
      status: "pull-request-opened",
      summary: "opened #13",
      url: "https://github.test/octo/app/pull/13",
      pullRequestNumber: 13,
      totalTokens: 1200,
      costUsd: 0.01,
    });
    expect(JSON.parse(JSON.stringify(outcome))).toEqual(outcome);
  });

  it("leaves out a url and a pull request the job did not have", () => {
    const outcome = toTaskOutcome({
      status: "failed",
      summary: "checkout failed",
      totalTokens: 0,
      costUsd: 0,
    });
    expect(outcome).not.toHaveProperty("url");
    expect(outcome).not.toHaveProperty("pullRequestNumber");
    expect(outcome.status).toBe("failed");
  });
});
