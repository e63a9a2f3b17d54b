import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import { IGNORED_LABEL, PAUSED_LABEL } from "../../../src/doors/github/commands/conversation-mode.js";
import {
  API,
  createAppHarness,
  examplePayload,
  mockConfig,
  mockInstallationToken,
  mockPermission,
  type AppHarness,
} from "./github-app-test-helpers.js";

const OWNER = "Codertocat";
const REPO = "Hello-World";

/** Intake reads pause and ignore from the labels each payload carries: no extra request. */
describe("intake and the conversation's mode", () => {
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

  const queued = async () => {
    const stats = await harness.queue.stats();
    return stats.queued + stats.running;
  };

  it("adds the paused label on `pause` and answers in the conversation", async () => {
    const payload = examplePayload("issue_comment", "created");
    payload["comment"].body = "@agentforge pause";
    payload["issue"].pull_request = { url: `${API}/repos/${OWNER}/${REPO}/pulls/1` };
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, payload["comment"].user.login, "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/labels`, { labels: [PAUSED_LABEL] })
      .reply(200, [{ name: PAUSED_LABEL }]);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) =>
        body.body.includes("Paused"),
      )
      .reply(201, { id: 1 });
    await harness.probot.receive({ id: "d-pause", name: "issue_comment", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await queued()).toBe(0);
  });

  it("removes the label on `resume`, and says so", async () => {
    const payload = examplePayload("issue_comment", "created");
    payload["comment"].body = "@agentforge resume";
    payload["issue"].labels = [{ name: IGNORED_LABEL }];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, payload["comment"].user.login, "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .delete(`/repos/${OWNER}/${REPO}/issues/1/labels/${encodeURIComponent(IGNORED_LABEL)}`)
      .reply(200, []);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) =>
        body.body.includes("Resumed"),
      )
      .reply(201, { id: 1 });
    await harness.probot.receive({ id: "d-resume", name: "issue_comment", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
  });

  it("does not review a push to a paused pull request, and makes no request at all", async () => {
    const payload = examplePayload("pull_request", "synchronize");
    payload["pull_request"].labels = [{ name: PAUSED_LABEL }];
    await harness.probot.receive({ id: "d-sync-paused", name: "pull_request", payload: payload as never });
    expect(harness.unmatched).toEqual([]);
    expect(await queued()).toBe(0);
  });

  it("reviews the same push once the label is gone", async () => {
    const payload = examplePayload("pull_request", "synchronize");
    payload["pull_request"].labels = [{ name: "bug" }];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockConfig(scope, OWNER, REPO, "review:\n  auto: true\n");
    await harness.probot.receive({ id: "d-sync-active", name: "pull_request", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await queued()).toBe(1);
  });

  it("declines a fix in an ignored conversation and points to `resume`", async () => {
    const payload = examplePayload("issue_comment", "created");
    payload["comment"].body = "@agentforge fix this";
    payload["issue"].labels = [{ name: IGNORED_LABEL }];
    const scope = nock(API);
    mockInstallationToken(scope);
    mockPermission(scope, OWNER, REPO, payload["comment"].user.login, "write");
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(`/repos/${OWNER}/${REPO}/issues/1/comments`, (body: { body: string }) =>
        body.body.includes("@agentforge resume"),
      )
      .reply(201, { id: 1 });
    await harness.probot.receive({ id: "d-ignored-fix", name: "issue_comment", payload: payload as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    expect(await queued()).toBe(0);
  });

  it("ignores an assignment in an ignored conversation without a request", async () => {
    const payload = examplePayload("issues", "assigned", 1);
    payload["installation"] = { id: payload["installation"].id };
    payload["assignee"] = { login: "agentforge[bot]", type: "Bot" };
    payload["issue"].labels = [{ name: IGNORED_LABEL }];
    await harness.probot.receive({ id: "d-assign-ignored", name: "issues", payload: payload as never });
    expect(harness.unmatched).toEqual([]);
    expect(await queued()).toBe(0);
  });
});
