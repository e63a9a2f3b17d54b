import { describe, expect, it } from "@jest/globals";
import { createActionProgress } from "../../../src/doors/action/create-action-progress.js";

function recordingOctokit() {
  const calls: { route: string; body: unknown }[] = [];
  return {
    calls,
    async request(route: string, parameters?: Record<string, unknown>) {
      calls.push({ route, body: parameters?.["body"] });
      return { status: 201, data: { id: 77 } };
    },
  };
}

describe("createActionProgress", () => {
  it("posts once, then edits the same comment, redacting every text, and the last text always lands", async () => {
    const octokit = recordingOctokit();
    const progress = createActionProgress(octokit, {
      owner: "o",
      repo: "r",
      issueNumber: 4,
      redact: (text) => text.replaceAll("ghs_secret", "[REDACTED]"),
      minIntervalMs: 60_000,
    });
    await progress.update("starting with ghs_secret");
    await progress.update("step 1");
    await progress.update("step 2");
    await progress.finish("done");
    expect(progress.commentId).toBe(77);
    expect(octokit.calls).toEqual([
      {
        route: "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
        body: "starting with [REDACTED]",
      },
      { route: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", body: "done" },
    ]);
  });
});
