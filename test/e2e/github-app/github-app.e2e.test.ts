import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { sendSignedWebhook } from "../../support/github-stand-in/send-signed-webhook.js";
import {
  startGitHubStandIn,
  userOf,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { startCli, waitFor, type RunningCli } from "../support/run-cli.js";
import {
  fixSteps,
  issueCommentPayload,
  OWNER,
  privateKey,
  PROJECT_FILES,
  REPO,
  script,
  WEBHOOK_SECRET,
} from "./app-fixture.js";

/**
 * The App as deployed: `agentforge serve` in a child process, a local GitHub stand-in (REST plus
 * git over HTTP that insists on the installation token), and a scripted model. Webhooks are
 * signed as GitHub signs them, from a real payload.
 */
describe("agentforge serve against a GitHub stand-in", () => {
  let github: GitHubStandIn;
  let model: MockModelServer;
  let dataDir: string;
  let app: RunningCli | null = null;
  let webhookUrl = "";
  const timings: Record<string, number> = {};

  const env = (): NodeJS.ProcessEnv => ({
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET,
    PORT: "0",
    HOST: "127.0.0.1",
    GHE_HOST: github.host,
    GHE_PROTOCOL: "http",
    LOG_LEVEL: process.env.AGENTFORGE_E2E_LOG_LEVEL === "info" ? "info" : "warn",
    LOG_FORMAT: "json",
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
    AGENTFORGE_MODEL: "gpt-4.1-mini",
    AGENTFORGE_DATA_DIR: dataDir,
    AGENTFORGE_QUEUE_LEASE_MS: "15000",
    NODE_ENV: "test",
  });

  async function startApp(): Promise<void> {
    const started = startCli(["serve"], env());
    app = started;
    await waitFor(
      () => {
        if (started.child.exitCode !== null) throw new Error(`serve exited: ${started.output().stderr}`);
        return /listening on (http:\/\/\S+) /.test(started.output().stdout);
      },
      "the App to listen",
      20_000,
    );
    const url = /listening on (http:\/\/\S+) /.exec(started.output().stdout)![1]!;
    webhookUrl = `${url}/api/github/webhooks`;
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
  }

  /** Deliveries the App has decided on, by result: the event after which its intake is done. */
  async function deliveriesDecided(result: string): Promise<number> {
    const text = await (await fetch(webhookUrl.replace(/\/api\/github\/webhooks$/, "/metrics"))).text();
    return text
      .split("\n")
      .filter(
        (line) =>
          line.startsWith("agentforge_webhook_deliveries_total{") && line.includes(`result="${result}"`),
      )
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
  }

  const repository = () => github.repository(OWNER, REPO);
  const commentsOn = (issue: number) =>
    repository().comments.filter((comment) => comment.issueNumber === issue);
  const progressOf = (issue: number) => commentsOn(issue).filter((comment) => comment.user.type === "Bot");

  async function command(issue: number, body: string, login: string, deliveryId: string) {
    const commentId = github.addComment(OWNER, REPO, issue, body, login);
    const payload = issueCommentPayload({
      issueNumber: issue,
      commentId,
      body,
      login,
      userId: userOf(login).id,
    });
    const response = await sendSignedWebhook({
      url: webhookUrl,
      secret: WEBHOOK_SECRET,
      event: "issue_comment",
      deliveryId,
      payload,
    });
    return { commentId, payload, response };
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "agentforge-app-e2e-"));
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }],
      permissions: { alice: "write", mallory: "read" },
    });
    model = await startMockModelServer({
      script: script([...fixSteps(), ...fixSteps(), ...fixSteps(60_000), ...fixSteps()]),
    });
    await startApp();
  }, 40_000);

  afterAll(async () => {
    if (process.env.AGENTFORGE_E2E_DEBUG) {
      process.stdout.write(`${app?.output().stderr ?? ""}\n${app?.output().stdout ?? ""}\n`);
      process.stdout.write(
        `${JSON.stringify(github.requests.map((request) => [request.method, request.path, request.status, request.status >= 400 ? request.body : ""]))}\n`,
      );
    }
    app?.killHard();
    await model?.close();
    await github?.close();
    if (!process.env.AGENTFORGE_E2E_DEBUG) rmSync(dataDir, { recursive: true, force: true });
    else process.stdout.write(`data dir kept: ${dataDir}\n`);
    process.stdout.write(`github-app e2e timings (ms): ${JSON.stringify(timings)}\n`);
  });

  it("turns `@agentforge fix this` into a pushed branch and a pull request", async () => {
    const issue = github.addIssue(OWNER, REPO, {
      title: "sum returns the wrong value",
      body: "sum(2, 3) gives -1.",
      author: "alice",
    });
    const startedAt = Date.now();
    const { commentId, response } = await command(issue, "@agentforge fix this", "alice", "delivery-1");
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    timings["webhookAck"] = Math.round(response.elapsedMs);
    await waitFor(
      () =>
        repository().reactions.some(
          (reaction) => reaction.target === `issues/comments/${commentId}` && reaction.content === "eyes",
        ),
      "the 👀 reaction",
      10_000,
    );
    await waitFor(
      () =>
        repository().pulls.size === 1 &&
        progressOf(issue).some((comment) => /Opened #\d+/.test(comment.body)),
      "the pull request",
      45_000,
    );
    timings["webhookToPullRequest"] = Date.now() - startedAt;

    const progress = progressOf(issue);
    expect(progress).toHaveLength(1);
    expect(progress[0]!.history.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.history[0]).toContain("Working on it");
    const pull = [...repository().pulls.values()][0]!;
    expect(pull.head).toBe(`agentforge/issue-${issue}`);
    expect(pull.draft).toBe(false);
    expect(pull.body).toContain(`Fixes #${issue}`);
    expect(pull.body).toContain("node test.js");

    const bare = repository().bareDir;
    const sha = github.branchSha(OWNER, REPO, pull.head)!;
    expect(execFileSync("git", ["show", `${sha}:sum.js`], { cwd: bare, encoding: "utf8" })).toContain(
      "return a + b;",
    );
    const message = execFileSync("git", ["log", "-1", "--format=%B%n%an", sha], {
      cwd: bare,
      encoding: "utf8",
    });
    expect(message).toContain(`Fix #${issue}`);
    expect(message).toContain(`Co-authored-by: alice <${userOf("alice").id}+alice@users.noreply.github.com>`);
    expect(message).toContain("agentforge[bot]");
    expect(
      repository().checkRuns.some((run) => run["head_sha"] === sha && run["conclusion"] === "success"),
    ).toBe(true);
    // The token never reached anything GitHub shows.
    const posted = [...repository().comments.map((comment) => comment.history.join("\n")), pull.body].join(
      "\n",
    );
    expect(posted).not.toContain(github.token);
    // After the task, the cache writes a spare tree of the repository for its next checkout
    // (AGENTFORGE_SPARE_TREES unset: the default keeps some).
    const spares = path.join(dataDir, "cache", "spares");
    await waitFor(
      () => existsSync(spares) && readdirSync(spares).some((name) => !name.startsWith(".")),
      "the spare tree",
      10_000,
    );
  }, 60_000);

  it("updates the same pull request on a second trigger and ignores a redelivery", async () => {
    const issue = 1;
    const before = progressOf(issue).length;
    await command(issue, "@agentforge fix this again please", "alice", "delivery-2");
    await waitFor(
      () => progressOf(issue).length === before + 1 && /Updated #\d+/.test(progressOf(issue).at(-1)!.body),
      "the update",
      45_000,
    );
    expect(repository().pulls.size).toBe(1);

    const requestsBefore = github.requests.length;
    const commentsBefore = repository().comments.length;
    const duplicatesBefore = await deliveriesDecided("duplicate");
    const payload = issueCommentPayload({
      issueNumber: issue,
      commentId: 1,
      body: "@agentforge fix this",
      login: "alice",
      userId: userOf("alice").id,
    });
    const redelivered = await sendSignedWebhook({
      url: webhookUrl,
      secret: WEBHOOK_SECRET,
      event: "issue_comment",
      deliveryId: "delivery-1",
      payload,
    });
    expect(redelivered.status).toBeLessThan(300);
    // Once the App has counted the delivery as a duplicate, nothing can be enqueued for it.
    await waitFor(
      async () => (await deliveriesDecided("duplicate")) > duplicatesBefore,
      "the redelivery's decision",
    );
    expect(repository().comments.length).toBe(commentsBefore);
    expect(github.requests.slice(requestsBefore).filter((request) => request.method !== "GET")).toEqual([]);
  }, 60_000);

  it("does nothing for a commenter without write access", async () => {
    const issue = github.addIssue(OWNER, REPO, { title: "please break things", body: "", author: "mallory" });
    const refusedBefore = await deliveriesDecided("refused");
    const { commentId, response } = await command(issue, "@agentforge fix this", "mallory", "delivery-3");
    expect(response.status).toBeLessThan(300);
    // A refused command is never enqueued nor acknowledged: after the decision, nothing is left to come.
    await waitFor(async () => (await deliveriesDecided("refused")) > refusedBefore, "the refusal");
    expect(progressOf(issue)).toEqual([]);
    expect(
      repository().reactions.some((reaction) => reaction.target === `issues/comments/${commentId}`),
    ).toBe(false);
    expect(github.branchSha(OWNER, REPO, `agentforge/issue-${issue}`)).toBeNull();
  }, 20_000);

  it("finishes a task after the server is killed mid-run and restarted, without a duplicate PR", async () => {
    const issue = github.addIssue(OWNER, REPO, {
      title: "sum is still wrong elsewhere",
      body: "",
      author: "alice",
    });
    const modelRequestsBefore = model.requests.length;
    await command(issue, "@agentforge fix this", "alice", "delivery-4");
    // The progress comment starts beside the checkout: the kill must come after the task has
    // recorded it (its first edit follows that record), or the restart cannot know it.
    await waitFor(
      () =>
        model.requests.length > modelRequestsBefore &&
        progressOf(issue).length === 1 &&
        progressOf(issue)[0]!.body !== "👀 Working on it…",
      "the run to reach the model",
      20_000,
    );
    if (process.env.AGENTFORGE_E2E_DEBUG) process.stdout.write(`before kill: ${app!.output().stderr}\n`);
    app!.killHard();
    await app!.exited;
    const killedAt = Date.now();
    await startApp();
    await waitFor(
      () => progressOf(issue).some((comment) => /(Opened|Updated) #\d+/.test(comment.body)),
      "the resumed task to finish",
      60_000,
    );
    timings["restartToFinish"] = Date.now() - killedAt;
    const pulls = [...repository().pulls.values()].filter(
      (pull) => pull.head === `agentforge/issue-${issue}`,
    );
    expect(pulls).toHaveLength(1);
    expect(progressOf(issue)[0]!.body).toContain("interrupted");
  }, 90_000);
});
