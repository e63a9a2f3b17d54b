import { IGNORED_LABEL } from "../../../src/doors/github/commands/conversation-mode.js";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import {
  API,
  createAppHarness,
  examplePayload,
  INSTALLATION_ID,
  mockConfig,
  mockInstallationToken,
  mockPermission,
  type AppHarness,
  type Payload,
} from "./github-app-test-helpers.js";

const OWNER = "Codertocat";
const REPO = "Hello-World";

function commentPayload(body: string, options: { onPullRequest?: boolean; bot?: boolean } = {}): Payload {
  const payload = examplePayload("issue_comment", "created");
  payload["comment"].body = body;
  if (options.onPullRequest) payload["issue"].pull_request = { url: `${API}/repos/${OWNER}/${REPO}/pulls/1` };
  if (options.bot) {
    payload["comment"].user = { ...payload["comment"].user, login: "agentforge[bot]", type: "Bot" };
    payload["sender"] = { ...payload["sender"], login: "agentforge[bot]", type: "Bot" };
  }
  return payload;
}

describe("createAgentForgeApp intake", () => {
  let harness: AppHarness;

  beforeEach(async () => {
    nock.disableNetConnect();
    harness = await createAppHarness();
  });

  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await harness.close();
  });

  async function tasks() {
    const stats = await harness.queue.stats();
    return stats.queued + stats.running;
  }

  it("ignores a bot, itself included, before making any request", async () => {
    await harness.probot.receive({
      id: "d-bot",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this", { bot: true }) as never,
    });
    expect(harness.unmatched).toEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("ignores a comment that does not mention the app, without a request", async () => {
    await harness.probot.receive({
      id: "d-none",
      name: "issue_comment",
      payload: commentPayload("looks good to me") as never,
    });
    expect(harness.unmatched).toEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("ignores a mention inside a quote or code", async () => {
    const body = "> @agentforge fix this\n\n```\n@agentforge fix this\n```\nsee `@agentforge plan`";
    await harness.probot.receive({
      id: "d-quoted",
      name: "issue_comment",
      payload: commentPayload(body) as never,
    });
    expect(harness.unmatched).toEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("does nothing for a commenter with read permission: no task, no reaction", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "read");
    await harness.probot.receive({
      id: "d-read",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(harness.unmatched).toEqual([]);
    expect(await tasks()).toBe(0);
    expect(harness.logger.lines.some((line) => line.message.includes("unauthorized"))).toBe(true);
  });

  it("fails closed when the permission lookup errors, and logs it", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    scope.get(`/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`).reply(500, { message: "boom" });
    await harness.probot.receive({
      id: "d-500",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await tasks()).toBe(0);
    expect(harness.logger.lines.find((line) => line.level === "warn")?.details).toMatchObject({
      status: 500,
    });
  });

  it("acknowledges an authorized fix with 👀 and records a durable task", async () => {
    const queries: string[] = [];
    const reactions: unknown[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null, queries);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`, (body) => {
        reactions.push(body);
        return true;
      })
      .reply(201, { id: 1, content: "eyes" });

    await harness.probot.receive({
      id: "d-fix",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix the parser") as never,
    });

    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(reactions).toEqual([{ content: "eyes" }]);
    // context.config reads the default branch: no ref in any contents request.
    expect(queries.every((query) => !query.includes("ref="))).toBe(true);
    const claimed = await harness.queue.claim("test");
    expect(claimed?.payload).toMatchObject({
      deliveryId: "d-fix",
      eventName: "issue_comment.created",
      installationId: INSTALLATION_ID,
      owner: OWNER,
      repo: REPO,
      number: 1,
      isPullRequest: false,
      command: { kind: "fix", instructions: "the parser" },
      trigger: "comment",
      requester: "Codertocat",
      commentId: 492700400,
      headSha: null,
    });
    expect(claimed?.key).toBe("codertocat/hello-world#1");
  });

  it("enqueues before the 👀 reaction completes by default, so the write throttle never delays a task", async () => {
    await harness.close();
    harness = await createAppHarness({ acknowledge: "background" });
    let answerReaction: (() => void) | undefined;
    const reactionAsked = new Promise<void>((resolve) => {
      const scope = nock(API);
      mockInstallationToken(scope);
      mockPermission(scope, OWNER, REPO, "Codertocat", "write");
      mockConfig(scope, OWNER, REPO, null, []);
      scope
        .post(`/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`)
        .reply((_uri, _body, callback) => {
          answerReaction = () => callback(null, [201, { id: 1, content: "eyes" }]);
          resolve();
        });
    });

    await harness.probot.receive({
      id: "d-bg",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this") as never,
    });

    // Triage runs after the answer; the task is durable while the reaction is still unanswered.
    await reactionAsked;
    expect(await tasks()).toBe(1);
    expect(answerReaction).toBeDefined();
    answerReaction?.();
  });

  it("enqueues one task when GitHub redelivers the same delivery", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "admin");
    mockConfig(scope, OWNER, REPO, null);
    scope.post(`/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`).reply(201, {});
    const payload = commentPayload("@agentforge plan");
    await harness.probot.receive({ id: "d-same", name: "issue_comment", payload: payload as never });
    await harness.probot.receive({ id: "d-same", name: "issue_comment", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(harness.unmatched).toEqual([]);
    expect(await harness.queue.stats()).toMatchObject({ queued: 1 });
  });

  it("comments on an invalid config, naming the key and the fix, and runs nothing", async () => {
    const queries: string[] = [];
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, "review:\n  max_comments: lots\nmodle: gpt\n", queries);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        return true;
      })
      .reply(201, { id: 9 });
    await harness.probot.receive({
      id: "d-config",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(queries).toEqual([""]);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("`review.max_comments`: expected a number ≤ 100");
    expect(comments[0]!.body).toContain('got "lots" — edit .github/agentforge.yml on the default branch');
    expect(comments[0]!.body).toContain("`modle`: unknown key");
    expect(await tasks()).toBe(0);
  });

  it("refuses a commenter below the configured min_permission", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, "trigger:\n  min_permission: admin\n");
    await harness.probot.receive({
      id: "d-min",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix this") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("answers help at once with the command list and enqueues nothing", async () => {
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "maintain", "maintain");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        return true;
      })
      .reply(201, { id: 10 });
    await harness.probot.receive({
      id: "d-help",
      name: "issue_comment",
      payload: commentPayload("@agentforge help") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(comments[0]!.body).toContain("@agentforge fix this");
    expect(comments[0]!.body).toContain("@agentforge stop");
    expect(await tasks()).toBe(0);
    // A redelivered help does not answer twice.
    await harness.probot.receive({
      id: "d-help",
      name: "issue_comment",
      payload: commentPayload("@agentforge help") as never,
    });
    expect(harness.unmatched).toEqual([]);
  });

  it("stops the waiting task of the issue and says so", async () => {
    await harness.queue.enqueue({
      deliveryId: "earlier",
      key: "codertocat/hello-world#1",
      installationId: INSTALLATION_ID,
      payload: {
        deliveryId: "earlier",
        eventName: "issue_comment.created",
        installationId: INSTALLATION_ID,
        owner: OWNER,
        repo: REPO,
        number: 1,
        isPullRequest: false,
        command: { kind: "fix" },
        trigger: "comment",
        requester: "Codertocat",
        commentId: 1,
        headSha: null,
        beforeSha: null,
        reviewComment: null,
        receivedAt: 0,
      },
    });
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        return true;
      })
      .reply(201, { id: 11 });
    await harness.probot.receive({
      id: "d-stop",
      name: "issue_comment",
      payload: commentPayload("@agentforge stop") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(comments[0]!.body).toMatch(/^Stopped: cancelled 1 task/);
    expect(await harness.queue.stats()).toMatchObject({ queued: 0, cancelled: 1 });
  });

  it("answers a free-form request on an issue with what works there", async () => {
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        comments.push(body);
        return true;
      })
      .reply(201, { id: 12 });
    await harness.probot.receive({
      id: "d-req-issue",
      name: "issue_comment",
      payload: commentPayload("@agentforge rename it") as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(comments[0]!.body).toContain("works on pull requests");
    expect(await tasks()).toBe(0);
  });

  it("enqueues a free-form request made on a pull request", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null);
    scope.post(`/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`).reply(201, {});
    const payload = commentPayload("@agentforge rename count to total", { onPullRequest: true });
    await harness.probot.receive({ id: "d-pr-req", name: "issue_comment", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({
      isPullRequest: true,
      command: { kind: "request", text: "rename count to total" },
    });
  });

  it("enqueues a command from a review comment with its file and line, and reacts to that comment", async () => {
    const payload = examplePayload("pull_request_review_comment", "created", 1);
    payload["comment"].body = "@agentforge fix this";
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, payload["comment"].user.login, "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/pulls/comments/${payload["comment"].id}/reactions`, { content: "eyes" })
      .reply(201, {});
    await harness.probot.receive({
      id: "d-review-comment",
      name: "pull_request_review_comment",
      payload: payload as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({
      trigger: "review-comment",
      number: 2,
      headSha: payload["pull_request"].head.sha,
      reviewComment: { path: "README.md", line: 265 },
      command: { kind: "fix" },
    });
  });

  it("tells the person whose waiting command a newer one replaced, where they wrote it", async () => {
    const replies: string[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    mockConfig(scope, OWNER, REPO, null, []);
    mockConfig(scope, OWNER, REPO, null, []);
    scope
      .post(/\/repos\/Codertocat\/Hello-World\/issues\/comments\/\d+\/reactions/)
      .times(2)
      .reply(201, {});
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) => {
        replies.push(body.body);
        return true;
      })
      .reply(201, { id: 5 });
    await harness.probot.receive({
      id: "d-first",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix the parser") as never,
    });
    const second = commentPayload("@agentforge plan");
    second["comment"].id = 492700401;
    await harness.probot.receive({ id: "d-second", name: "issue_comment", payload: second as never });
    expect(replies).toEqual([
      "⏭️ Not run: a newer request here (`plan` by @Codertocat) arrived before this one started, and it replaces this one.",
    ]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({ command: { kind: "plan" } });
  });

  it("enqueues a fix when an authorized user adds the configured label", async () => {
    const payload = examplePayload("issues", "labeled");
    payload["label"].name = "AgentForge";
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "trigger:\n  label: agentforge\n");
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    scope.post(`/repos/${OWNER}/${REPO}/issues/1/reactions`, { content: "eyes" }).reply(201, {});
    await harness.probot.receive({ id: "d-label", name: "issues", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({
      trigger: "label",
      command: { kind: "fix" },
    });
  });

  it("enqueues a review when an authorized user adds the configured label to a pull request", async () => {
    const payload = examplePayload("pull_request", "labeled");
    payload["label"].name = "agentforge";
    const number = payload["pull_request"].number as number;
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "trigger:\n  label: AgentForge\n");
    mockPermission(scope, OWNER, REPO, payload["sender"].login as string, "write");
    scope.post(`/repos/${OWNER}/${REPO}/issues/${number}/reactions`, { content: "eyes" }).reply(201, {});
    await harness.probot.receive({ id: "d-pr-label", name: "pull_request", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({
      trigger: "label",
      number,
      isPullRequest: true,
      command: { kind: "review" },
    });
  });

  it("starts nothing for the trigger label on a conversation it was told to ignore", async () => {
    const payload = examplePayload("issues", "labeled");
    payload["label"].name = "agentforge";
    payload["issue"].labels = [{ name: "agentforge" }, { name: IGNORED_LABEL }];
    const scope = nock(API);
    mockInstallationToken(scope);
    // Everything a label trigger needs is in place: only the ignore label stops it.
    mockConfig(scope, OWNER, REPO, "trigger:\n  label: agentforge\n");
    mockPermission(scope, OWNER, REPO, "Codertocat", "write");
    scope.post(`/repos/${OWNER}/${REPO}/issues/1/reactions`).reply(201, {});
    await harness.probot.receive({ id: "d-label-ignored", name: "issues", payload: payload as never });
    expect(await tasks()).toBe(0);
    payload["issue"].labels = [{ name: "agentforge" }];
    await harness.probot.receive({ id: "d-label-resumed", name: "issues", payload: payload as never });
    expect(await tasks()).toBe(1);
  });

  it("ignores a label other than the configured one", async () => {
    const payload = examplePayload("issues", "labeled");
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "trigger:\n  label: agentforge\n");
    await harness.probot.receive({ id: "d-bug-label", name: "issues", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("enqueues an automatic review of an opened pull request when review.auto is on", async () => {
    const payload = examplePayload("pull_request", "opened", 1);
    const queries: string[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "review:\n  auto: true\n", queries);
    await harness.probot.receive({ id: "d-pr-open", name: "pull_request", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    // The config judging a pull request comes from the default branch, never from its head.
    expect(queries).toEqual([""]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({
      trigger: "pull-request",
      command: { kind: "review" },
      headSha: payload["pull_request"].head.sha,
      eventName: "pull_request.opened",
    });
  });

  it("records the previous head on synchronize so only new commits are reviewed", async () => {
    const payload = examplePayload("pull_request", "synchronize");
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "review:\n  auto: true\n");
    await harness.probot.receive({ id: "d-sync", name: "pull_request", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect((await harness.queue.claim("t"))?.payload).toMatchObject({ beforeSha: payload["before"] });
  });

  it("skips a draft pull request unless review.drafts is on", async () => {
    const draft = examplePayload("pull_request", "opened", 1);
    draft["pull_request"].draft = true;
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "review:\n  auto: true\n");
    await harness.probot.receive({ id: "d-draft", name: "pull_request", payload: draft as never });
    expect(await tasks()).toBe(0);
    mockConfig(scope, OWNER, REPO, "review:\n  auto: true\n  drafts: true\n");
    await harness.probot.receive({ id: "d-draft-2", name: "pull_request", payload: draft as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await tasks()).toBe(1);
  });

  it("does not review automatically when review.auto is off (the default)", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, null);
    await harness.probot.receive({
      id: "d-pr-default",
      name: "pull_request",
      payload: examplePayload("pull_request", "opened", 1) as never,
    });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await tasks()).toBe(0);
  });

  it("rejects a payload with wrong types with a 400-status error and no request", async () => {
    const payload = commentPayload("@agentforge fix this");
    payload["issue"].number = "1";
    await expect(
      harness.probot.receive({ id: "d-types", name: "issue_comment", payload: payload as never }),
    ).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: 400, code: "INVALID_WEBHOOK_PAYLOAD" })],
    });
    expect(harness.unmatched).toEqual([]);
  });
});
