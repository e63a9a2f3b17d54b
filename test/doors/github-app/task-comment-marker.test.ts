import { describe, expect, it } from "@jest/globals";
import nock from "nock";
import { Octokit } from "@octokit/core";
import { createProgressComment } from "../../../src/doors/github/create-progress-comment.js";
import {
  defuseTaskCommentMarkers,
  renderTaskCommentMarker,
} from "../../../src/doors/github-app/task-comment-marker.js";

const other = renderTaskCommentMarker("11111111-2222-4333-8444-555555555555");
const own = renderTaskCommentMarker("99999999-2222-4333-8444-555555555555");

describe("task comment markers", () => {
  it("breaks every marker in a text, including one that removing another would have formed", () => {
    const nested = `<!-- agentforge-<!-- agentforge-task: x -->task: 1111 -->`;
    for (const text of [other, `summary\n${other}\n${other}`, nested]) {
      const defused = defuseTaskCommentMarkers(text);
      expect(defused).not.toContain("agentforge-task:");
      expect(defused).not.toContain(other);
    }
    expect(defuseTaskCommentMarkers("no marker here")).toBe("no marker here");
  });

  it("posts a progress comment whose text names another task with only its own marker intact", async () => {
    const bodies: string[] = [];
    const scope = nock("https://api.github.com")
      .post("/repos/o/r/issues/7/comments", (body: { body: string }) => {
        bodies.push(body.body);
        return true;
      })
      .reply(201, { id: 42 });
    const progress = createProgressComment(new Octokit(), {
      owner: "o",
      repo: "r",
      issueNumber: 7,
      redact: defuseTaskCommentMarkers,
      marker: own,
    });
    await progress.start(`the model wrote ${other} here`);
    expect(scope.isDone()).toBe(true);
    expect(bodies[0]).not.toContain(other);
    expect(bodies[0]?.endsWith(own)).toBe(true);
  });
});
