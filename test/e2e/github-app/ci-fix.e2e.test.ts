import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { renderCiFixMarker } from "../../../src/doors/github/commands/ci-fix-marker.js";
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
import { waitFor } from "../support/run-cli.js";
import { startAppProcess, type AppProcess } from "./app-processes.js";
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
import { checkSuiteCompletedPayload, workflowRunCompletedPayload } from "./ci-payloads.js";
import type { Payload } from "./conversation-payloads.js";

/**
 * The app fixing its own red CI, as deployed: `agentforge serve`, the GitHub stand-in (with check
 * runs, annotations and job logs) and a scripted model.
 */
describe("the App fixes red CI on its own pull requests", () => {
  let github: GitHubStandIn;
  let model: MockModelServer;
  let dataDir: string;
  let app: AppProcess | null = null;
  let webhookUrl = "";
  let octokit: Octokit;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "agentforge-ci-fix-"));
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }],
      permissions: { alice: "write", mallory: "read" },
    });
    octokit = new Octokit({ baseUrl: github.apiUrl, auth: github.token });
    model = await startMockModelServer({ script: script([...fixSteps(), ...fixSteps()]) });
    app = await startAppProcess("serve", "serve", {
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET,
      PORT: "0",
      HOST: "127.0.0.1",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: dataDir,
      NODE_ENV: "test",
    });
    webhookUrl = `${app.url}/api/github/webhooks`;
  }, 60_000);

  afterAll(async () => {
    if (process.env.AGENTFORGE_E2E_DEBUG) process.stdout.write(`${app?.cli.output().stderr ?? ""}\n`);
    app?.cli.killHard();
    await model?.close();
    await github?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const repository = () => github.repository(OWNER, REPO);
  const send = (event: string, deliveryId: string, payload: Payload) =>
    sendSignedWebhook({ url: webhookUrl, secret: WEBHOOK_SECRET, event, deliveryId, payload });
  const modelText = (): string => JSON.stringify(model.requests.map((request) => request.body ?? null));

  /** Pushes `branch` from main with one commit (the bug in sum.js stays). */
  function pushBranch(branch: string): string {
    const work = mkdtempSync(path.join(tmpdir(), "agentforge-ci-branch-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
          cwd: work,
          encoding: "utf8",
        });
      git("clone", "-q", repository().bareDir, ".");
      git("checkout", "-q", "-b", branch);
      writeFileSync(path.join(work, "NOTES.md"), `${branch}\n`);
      git("add", "NOTES.md");
      git("commit", "-qm", `Notes for ${branch}`);
      git("push", "-q", "origin", branch);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return github.branchSha(OWNER, REPO, branch)!;
  }

  /** A pull request the app opened (the stand-in's token is the app's installation). */
  async function openBotPullRequest(branch: string): Promise<{ number: number; headSha: string }> {
    const headSha = pushBranch(branch);
    const created = await octokit.request("POST /repos/{owner}/{repo}/pulls", {
      owner: OWNER,
      repo: REPO,
      title: branch,
      head: branch,
      base: "main",
    });
    return { number: created.data.number, headSha };
  }

  function addRedTest(headSha: string): number {
    return github.addCheckRun(OWNER, REPO, {
      headSha,
      name: "test",
      conclusion: "failure",
      appSlug: "github-actions",
      output: { title: "node test.js failed", summary: "The sum test fails on this commit." },
      annotations: [{ path: "test.js", startLine: 3, message: "AssertionError: -1 !== 5" }],
      log: "2026-12-02T06:00:00.0000000Z Run node test.js\n2026-12-02T06:00:01.0000000Z Error: sum(2, 3) gave -1 at test.js:3\n",
    });
  }

  let botPull = { number: 0, headSha: "" };

  it("fixes a red suite on its own pull request: the model reads the check's summary, annotation and log tail, and the fix is pushed to that branch", async () => {
    botPull = await openBotPullRequest("agentforge/issue-41");
    addRedTest(botPull.headSha);
    const response = await send(
      "check_suite",
      "ci-red-1",
      checkSuiteCompletedPayload({
        pullNumber: botPull.number,
        headSha: botPull.headSha,
        headRef: "agentforge/issue-41",
      }),
    );
    expect(response.status).toBe(200);
    await waitFor(
      () => github.branchSha(OWNER, REPO, "agentforge/issue-41") !== botPull.headSha,
      "the fix pushed to the pull request's branch",
      45_000,
    );
    const text = modelText();
    expect(text).toContain("The sum test fails on this commit.");
    expect(text).toContain("test.js:3 [failure] AssertionError: -1 !== 5");
    expect(text).toContain("Error: sum(2, 3) gave -1 at test.js:3");
    await waitFor(
      () =>
        repository().comments.some(
          (comment) => comment.issueNumber === botPull.number && comment.body.includes("Pushed"),
        ),
      "the attempt's last word",
      10_000,
    );
    const attempt = repository().comments.find((comment) => comment.issueNumber === botPull.number)!;
    expect(attempt.body).toContain(renderCiFixMarker({ kind: "automatic", headSha: botPull.headSha }));
    expect(repository().pulls.size).toBe(1);
  }, 90_000);

  it("leaves a red suite on a person's pull request alone", async () => {
    const headSha = pushBranch("agentforge/issue-99");
    // Opened by alice from a branch that only looks like the app's.
    const number = repository().nextNumber++;
    repository().pulls.set(number, {
      number,
      title: "alice's change",
      body: "",
      head: "agentforge/issue-99",
      base: "main",
      draft: false,
      state: "open",
      user: userOf("alice"),
    });
    repository().issues.set(number, {
      number,
      title: "alice's change",
      body: "",
      user: userOf("alice"),
      isPullRequest: true,
    });
    addRedTest(headSha);
    const requestsBefore = github.requests.length;
    const response = await send(
      "check_suite",
      "ci-red-person",
      checkSuiteCompletedPayload({ pullNumber: number, headSha, headRef: "agentforge/issue-99" }),
    );
    expect(response.status).toBe(200);
    await waitFor(
      () =>
        github.requests
          .slice(requestsBefore)
          .some((request) => request.path === `/repos/${OWNER}/${REPO}/pulls/${number}`),
      "the look at the pull request",
      10_000,
    );
    // Intake read the pull request and stopped: no comment, no task, no history read.
    const after = github.requests.slice(requestsBefore);
    expect(after.filter((request) => request.method !== "GET" && !request.path.startsWith("/app"))).toEqual(
      [],
    );
    expect(after.some((request) => request.path.endsWith(`/issues/${number}/comments`))).toBe(false);
  }, 30_000);

  it("stops after two automatic attempts and says once what still fails, whatever markers a person pasted", async () => {
    const pull = await openBotPullRequest("agentforge/issue-42");
    // Two earlier attempts, in the app's own comments; a person's pasted "stopped" marker counts for nothing.
    for (const head of ["a".repeat(40), "b".repeat(40)])
      await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner: OWNER,
        repo: REPO,
        issue_number: pull.number,
        body: `earlier attempt\n\n${renderCiFixMarker({ kind: "automatic", headSha: head })}`,
      });
    github.addComment(
      OWNER,
      REPO,
      pull.number,
      renderCiFixMarker({ kind: "stopped", headSha: pull.headSha }),
      "mallory",
    );
    addRedTest(pull.headSha);
    const modelRequests = model.requests.length;
    const before = repository().comments.length;
    const payload = workflowRunCompletedPayload({
      pullNumber: pull.number,
      headSha: pull.headSha,
      headRef: "agentforge/issue-42",
    });
    expect((await send("workflow_run", "ci-red-3", payload)).status).toBe(200);
    await waitFor(() => repository().comments.length > before, "the stop comment", 10_000);
    const stop = repository().comments.at(-1)!;
    expect(stop.user.login).toBe("agentforge[bot]");
    expect(stop.body).toContain("after 2 automatic attempts");
    expect(stop.body).toContain("- `test`");
    expect(stop.body).toContain("`@agentforge fix ci` asks for another try");
    // Once: the same red run again (a second suite, or a redelivery) adds nothing.
    const requestsBefore = github.requests.length;
    expect((await send("workflow_run", "ci-red-4", payload)).status).toBe(200);
    await waitFor(
      () =>
        github.requests
          .slice(requestsBefore)
          .some((request) => request.path.endsWith(`/issues/${pull.number}/comments`)),
      "the second look at the history",
      10_000,
    );
    expect(repository().comments.length).toBe(before + 1);
    expect(model.requests.length).toBe(modelRequests);
    stopPull = pull;
  }, 60_000);

  let stopPull = { number: 0, headSha: "" };

  it("runs `@agentforge fix ci` from a person even after the automatic attempts are spent", async () => {
    expect(stopPull.number).toBeGreaterThan(0);
    const body = "@agentforge fix ci";
    const commentId = github.addComment(OWNER, REPO, stopPull.number, body, "alice");
    const payload = issueCommentPayload({
      issueNumber: stopPull.number,
      commentId,
      body,
      login: "alice",
      userId: userOf("alice").id,
    });
    payload["issue"].pull_request = {
      url: `${github.apiUrl}/repos/${OWNER}/${REPO}/pulls/${stopPull.number}`,
    };
    expect((await send("issue_comment", "fix-ci-command", payload)).status).toBe(200);
    await waitFor(
      () => github.branchSha(OWNER, REPO, "agentforge/issue-42") !== stopPull.headSha,
      "the fix pushed on request",
      45_000,
    );
    // The progress comment is posted beside the checkout, so the push may come first.
    await waitFor(
      () =>
        repository().comments.some(
          (comment) =>
            comment.user.login === "agentforge[bot]" &&
            comment.body.includes(renderCiFixMarker({ kind: "requested", headSha: stopPull.headSha })),
        ),
      "the requested fix's progress comment",
      15_000,
    );
  }, 60_000);
});
