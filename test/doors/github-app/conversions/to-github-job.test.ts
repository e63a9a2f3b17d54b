import { describe, expect, it } from "@jest/globals";
import { toGitHubJob } from "../../../../src/doors/github-app/to-github-job.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../../src/doors/github-app/github-request.js";

const request = (overrides: Partial<GitHubRequest> = {}): GitHubRequest => ({
  deliveryId: "d-1",
  eventName: "issue_comment.created",
  installationId: 7,
  owner: "octo",
  repo: "app",
  number: 12,
  isPullRequest: false,
  command: { kind: "fix" },
  trigger: "comment",
  requester: "alice",
  commentId: null,
  headSha: null,
  beforeSha: null,
  reviewComment: null,
  receivedAt: 0,
  ...overrides,
});

describe("toGitHubJob", () => {
  it("keeps where the work is and who asked, and leaves unknown fields out rather than null", () => {
    const job = toGitHubJob(request());
    expect(job).toEqual({
      owner: "octo",
      repo: "app",
      number: 12,
      isPullRequest: false,
      requester: "alice",
      kind: "fix",
    });
    expect(Object.values(job)).not.toContain(null);
  });

  it("turns red CI into an automatic fix-ci job on the pull request's head, and a person's fix ci into one that is not", () => {
    const automatic = decodeGitHubRequest(
      request({
        eventName: "check_suite.completed",
        isPullRequest: true,
        command: { kind: "fix-ci", automatic: true },
        trigger: "ci-failure",
        requester: "agentforge[bot]",
        headSha: "a".repeat(40),
      }),
    );
    expect(toGitHubJob(automatic)).toMatchObject({
      kind: "fix-ci",
      automatic: true,
      headSha: "a".repeat(40),
    });
    const asked = toGitHubJob(request({ isPullRequest: true, command: { kind: "fix-ci" } }));
    expect(asked).toMatchObject({ kind: "fix-ci", requester: "alice" });
    expect(asked).not.toHaveProperty("automatic");
  });

  it("asks for a full review only when the command did", () => {
    expect(toGitHubJob(request({ command: { kind: "review", full: true } }))).toMatchObject({
      fullReview: true,
    });
    expect(toGitHubJob(request({ command: { kind: "review" } }))).not.toHaveProperty("fullReview");
  });

  it("carries the shas and the comment when intake knew them", () => {
    const job = toGitHubJob(
      request({ isPullRequest: true, headSha: "a".repeat(40), beforeSha: "b".repeat(40), commentId: 99 }),
    );
    expect(job).toMatchObject({ headSha: "a".repeat(40), beforeSha: "b".repeat(40), commentId: 99 });
  });

  it.each([
    [
      { kind: "fix", instructions: "only the parser" } as const,
      { kind: "fix", instructions: "only the parser" },
    ],
    [{ kind: "plan" } as const, { kind: "plan" }],
    [{ kind: "review" } as const, { kind: "review" }],
    [
      { kind: "request", text: "why is this slow?" } as const,
      { kind: "request", instructions: "why is this slow?" },
    ],
  ])("turns the command %j into the job's kind and instructions", (command, expected) => {
    const job = toGitHubJob(request({ command }));
    expect(job).toMatchObject(expected);
    if (!("instructions" in expected)) expect(job).not.toHaveProperty("instructions");
  });

  it.each([
    [{ kind: "fix", model: "gpt-4.1" } as const, false, { kind: "fix", model: "gpt-4.1" }],
    [{ kind: "fix", instructions: "x", model: "o3" } as const, true, { kind: "request", model: "o3" }],
    [{ kind: "plan", model: "o3" } as const, false, { kind: "plan", model: "o3" }],
    [
      { kind: "review", full: true, model: "o3" } as const,
      true,
      { kind: "review", fullReview: true, model: "o3" },
    ],
    [{ kind: "request", text: "why?", model: "o3" } as const, true, { kind: "request", model: "o3" }],
  ])("carries the chosen model of %j (on a pull request: %s)", (command, isPullRequest, expected) => {
    expect(toGitHubJob(request({ command, isPullRequest }))).toMatchObject(expected);
  });

  it("chooses no model when the command did not, and decodes a task queued before models could be chosen", () => {
    expect(toGitHubJob(request({ command: { kind: "fix", instructions: "x" } }))).not.toHaveProperty("model");
    const stored = JSON.parse(
      JSON.stringify(request({ command: { kind: "plan", instructions: "x" } })),
    ) as unknown;
    const decoded = decodeGitHubRequest(stored);
    expect(decoded.command).toEqual({ kind: "plan", instructions: "x" });
    expect(toGitHubJob(decoded)).not.toHaveProperty("model");
    const chosen = decodeGitHubRequest({
      ...(stored as object),
      command: { kind: "plan", model: "gpt-4.1" },
    });
    expect(toGitHubJob(chosen)).toMatchObject({ kind: "plan", model: "gpt-4.1" });
  });

  it("keeps the review thread's file and line for a command written in one, and only then", () => {
    const inThread = toGitHubJob(
      request({
        isPullRequest: true,
        command: { kind: "request", text: "why?" },
        trigger: "review-comment",
        commentId: 5,
        reviewComment: { path: "src/a.ts", line: 3 },
      }),
    );
    expect(inThread).toMatchObject({ kind: "request", thread: { path: "src/a.ts", line: 3 } });
    expect(toGitHubJob(request({ isPullRequest: true, commentId: 5 }))).not.toHaveProperty("thread");
  });

  it("turns `fix` on a pull request into a change of its branch, not a new pull request", () => {
    expect(toGitHubJob(request({ isPullRequest: true, command: { kind: "fix" } }))).toMatchObject({
      kind: "request",
      instructions: "fix this",
    });
    expect(
      toGitHubJob(request({ isPullRequest: true, command: { kind: "fix", instructions: "the off-by-one" } })),
    ).toMatchObject({ kind: "request", instructions: "fix the off-by-one" });
    expect(toGitHubJob(request({ command: { kind: "fix" } }))).toMatchObject({ kind: "fix" });
  });
});
