import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { renderCiFixMarker } from "../../../../src/doors/github/commands/ci-fix-marker.js";
import { decideCiFix } from "../../../../src/doors/github/commands/decide-ci-fix.js";
import { readCiFixHistory } from "../../../../src/doors/github/commands/read-ci-fix-history.js";

const API = "https://api.github.com";
const BOT = "agentforge[bot]";
const HEAD = "c".repeat(40);
const silent = (): void => undefined;
const octokit = () =>
  new Octokit({
    auth: "installation-token",
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
const options = {
  ownLogins: [BOT],
  ownAppSlug: "agentforge",
  branchPrefix: "agentforge/",
  maxAttempts: 2,
  mention: "@agentforge",
};
const target = { owner: "octo", repo: "demo", number: 7, headSha: HEAD };

function comment(login: string, body: string, type = login.endsWith("[bot]") ? "Bot" : "User") {
  return { id: Math.floor(Math.random() * 1e6), body, user: { login, type } };
}
const automatic = (head: string) => `Working…\n\n${renderCiFixMarker({ kind: "automatic", headSha: head })}`;

function pull(overrides: Record<string, unknown> = {}) {
  return {
    number: 7,
    state: "open",
    user: { login: BOT, type: "Bot" },
    labels: [],
    head: { ref: "agentforge/issue-3", sha: HEAD, repo: { full_name: "octo/demo" } },
    ...overrides,
  };
}

describe("readCiFixHistory and decideCiFix", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("counts only the bot's own markers: a person's pasted marker neither uses up nor resets an attempt", async () => {
    nock(API)
      .get("/repos/octo/demo/issues/7/comments")
      .query(true)
      .reply(200, [
        comment(BOT, automatic("a".repeat(40))),
        comment("mallory", automatic("b".repeat(40))),
        comment("mallory", renderCiFixMarker({ kind: "stopped", headSha: HEAD })),
        comment("other-app[bot]", automatic("d".repeat(40))),
        comment(BOT, `${automatic("e".repeat(40))}\n${automatic("e".repeat(40))}`),
        comment(BOT, `asked\n\n${renderCiFixMarker({ kind: "requested", headSha: HEAD })}`),
      ]);
    const history = await readCiFixHistory(octokit(), target, [BOT]);
    expect(history).toEqual({
      automaticAttempts: 2,
      attemptedHeads: new Set(["a".repeat(40), "e".repeat(40)]),
      hasStopped: false,
    });
  });

  it("starts the next attempt on the bot's own pull request while attempts are left", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7")
      .reply(200, pull())
      .get("/repos/octo/demo/issues/7/comments")
      .query(true)
      .reply(200, [comment(BOT, automatic("a".repeat(40)))]);
    expect(await decideCiFix(octokit(), target, options)).toEqual({
      kind: "run",
      headSha: HEAD,
      headBranch: "agentforge/issue-3",
      attempt: 2,
    });
  });

  it("at the limit, stops with the failing checks' names and the command that asks again", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7")
      .reply(200, pull())
      .get("/repos/octo/demo/issues/7/comments")
      .query(true)
      .reply(200, [comment(BOT, automatic("a".repeat(40))), comment(BOT, automatic("b".repeat(40)))])
      .get(`/repos/octo/demo/commits/${HEAD}/check-runs`)
      .query({ filter: "latest", per_page: "100", page: "1" })
      .reply(200, {
        total_count: 3,
        check_runs: [
          {
            id: 1,
            name: "test (node 22)",
            status: "completed",
            conclusion: "failure",
            app: { slug: "github-actions" },
          },
          {
            id: 2,
            name: "lint",
            status: "completed",
            conclusion: "success",
            app: { slug: "github-actions" },
          },
          {
            id: 3,
            name: "AgentForge",
            status: "completed",
            conclusion: "failure",
            app: { slug: "agentforge" },
          },
        ],
      });
    const decision = await decideCiFix(octokit(), target, options);
    expect(decision).toMatchObject({ kind: "stop", failingChecks: ["test (node 22)"] });
    if (decision.kind !== "stop") throw new Error("expected a stop");
    expect(decision.comment).toContain("after 2 automatic attempts");
    expect(decision.comment).toContain("`@agentforge fix ci` asks for another try");
    expect(decision.comment).toContain(renderCiFixMarker({ kind: "stopped", headSha: HEAD }));
  });

  it("says nothing more once it said it stopped", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7")
      .reply(200, pull())
      .get("/repos/octo/demo/issues/7/comments")
      .query(true)
      .reply(200, [
        comment(BOT, automatic("a".repeat(40))),
        comment(BOT, automatic("b".repeat(40))),
        comment(BOT, renderCiFixMarker({ kind: "stopped", headSha: "b".repeat(40) })),
      ]);
    expect(await decideCiFix(octokit(), target, options)).toEqual({
      kind: "nothing",
      reason: "the automatic attempts are spent and that was said already",
    });
  });

  it.each([
    [
      "a person's pull request",
      pull({ user: { login: "alice", type: "User" } }),
      "was opened by alice, not by this bot",
    ],
    [
      "a branch that is not the bot's",
      pull({ head: { ref: "feature", sha: HEAD, repo: { full_name: "octo/demo" } } }),
      "is not one of the bot's",
    ],
    [
      "a fork's branch",
      pull({ head: { ref: "agentforge/issue-3", sha: HEAD, repo: { full_name: "eve/demo" } } }),
      "in another repository",
    ],
    [
      "a stale commit",
      pull({ head: { ref: "agentforge/issue-3", sha: "d".repeat(40), repo: { full_name: "octo/demo" } } }),
      "the branch is now at ddddddd",
    ],
    [
      "a paused conversation",
      pull({ labels: [{ name: "agentforge: paused" }] }),
      "the conversation is paused",
    ],
    [
      "an ignored conversation",
      pull({ labels: [{ name: "agentforge: ignored" }] }),
      "the conversation is ignored",
    ],
    ["a closed pull request", pull({ state: "closed" }), "not open"],
  ])("does nothing on %s, and says why", async (_name, data, reason) => {
    nock(API).get("/repos/octo/demo/pulls/7").reply(200, data);
    const decision = await decideCiFix(octokit(), target, options);
    expect(decision).toEqual({ kind: "nothing", reason: expect.stringContaining(reason) });
  });

  it("does not try one commit twice, and does nothing when the repository turned attempts off", async () => {
    nock(API)
      .get("/repos/octo/demo/pulls/7")
      .reply(200, pull())
      .get("/repos/octo/demo/issues/7/comments")
      .query(true)
      .reply(200, [comment(BOT, automatic(HEAD))]);
    expect(await decideCiFix(octokit(), target, options)).toEqual({
      kind: "nothing",
      reason: `an automatic attempt already started from ${HEAD.slice(0, 7)}`,
    });
    nock(API).get("/repos/octo/demo/pulls/7").reply(200, pull());
    expect(await decideCiFix(octokit(), target, { ...options, maxAttempts: 0 })).toMatchObject({
      kind: "nothing",
      reason: expect.stringContaining("ci.max_fix_attempts: 0"),
    });
  });
});
