import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { sendSignedWebhook } from "../../support/github-stand-in/send-signed-webhook.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { waitFor } from "../support/run-cli.js";
import { startAppProcess, type AppProcess } from "./app-processes.js";
import { PAUSED_LABEL } from "../../../src/doors/github/commands/conversation-mode.js";
import { userOf } from "../../support/github-stand-in/start-github-stand-in.js";
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
import {
  appUser,
  issueAssignedPayload,
  reviewRequestedPayload,
  type Payload,
} from "./conversation-payloads.js";

const FINDING = [
  {
    path: "sum.js",
    line: 2,
    severity: "medium",
    category: "correctness",
    title: "No test for negative numbers",
    body: "sum(-1, -2) is not covered.",
  },
];

/**
 * The conversation's ways in, as deployed: `agentforge serve`, the GitHub stand-in and a scripted
 * model. Assigning an issue to the app opens a pull request; requesting the app's review on it
 * posts a review.
 */
describe("the App's conversation triggers against a GitHub stand-in", () => {
  let github: GitHubStandIn;
  let model: MockModelServer;
  let dataDir: string;
  let app: AppProcess | null = null;
  let webhookUrl = "";

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "agentforge-conversation-"));
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: PROJECT_FILES }],
      permissions: { alice: "write", mallory: "read" },
    });
    model = await startMockModelServer({
      script: script([...fixSteps(), { type: "text", text: JSON.stringify(FINDING), times: 3 }]),
    });
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

  it("ignores an issue assigned to a person, and one assigned to the app by someone without write access", async () => {
    const issue = github.addIssue(OWNER, REPO, { title: "not for the app", body: "", author: "alice" });
    const toPerson = await send(
      "issues",
      "assign-person",
      issueAssignedPayload({
        issueNumber: issue,
        sender: "alice",
        assignee: { login: "alice", id: 7, type: "User" },
      }),
    );
    const byReader = await send(
      "issues",
      "assign-reader",
      issueAssignedPayload({ issueNumber: issue, sender: "mallory", assignee: appUser() }),
    );
    expect([toPerson.status, byReader.status]).toEqual([200, 200]);
    // The permission lookup is the last request intake makes before it would enqueue.
    await waitFor(
      () => github.requests.some((request) => request.path.endsWith("/collaborators/mallory/permission")),
      "the permission check",
      10_000,
    );
    expect(
      github.requests.filter((request) => request.method !== "GET" && !request.path.startsWith("/app")),
    ).toEqual([]);
    expect(repository().reactions).toEqual([]);
  }, 30_000);

  let pullNumber = 0;

  it("opens a pull request when an issue is assigned to the app", async () => {
    const issue = github.addIssue(OWNER, REPO, {
      title: "sum is wrong",
      body: "sum(2, 3) is -1",
      author: "alice",
    });
    const response = await send(
      "issues",
      "assign-app",
      issueAssignedPayload({ issueNumber: issue, sender: "alice", assignee: appUser() }),
    );
    expect(response.status).toBe(200);
    await waitFor(
      () => repository().reactions.some((reaction) => reaction.target === `issues/${issue}`),
      "the 👀 on the issue",
      10_000,
    );
    await waitFor(
      () =>
        repository().comments.some(
          (comment) => comment.issueNumber === issue && /Opened #\d+/.test(comment.body),
        ),
      "the pull request",
      45_000,
    );
    const pull = [...repository().pulls.values()].find((entry) => entry.head === `agentforge/issue-${issue}`);
    expect(pull?.body).toContain(`Fixes #${issue}`);
    pullNumber = pull!.number;
  }, 60_000);

  it("posts a review when the app is requested as a reviewer", async () => {
    expect(pullNumber).toBeGreaterThan(0);
    const head = `agentforge/issue-${pullNumber - 1}`;
    const pull = repository().pulls.get(pullNumber)!;
    const response = await send(
      "pull_request",
      "review-requested",
      reviewRequestedPayload({
        pullNumber,
        headSha: github.branchSha(OWNER, REPO, pull.head)!,
        headRef: head,
        sender: "alice",
        reviewer: appUser(),
      }),
    );
    expect(response.status).toBe(200);
    await waitFor(
      () => repository().reviews.some((review) => review.pullNumber === pullNumber),
      "the review",
      45_000,
    );
    const review = repository().reviews.find((entry) => entry.pullNumber === pullNumber)!;
    expect(review.comments).toEqual([expect.objectContaining({ path: "sum.js", line: 2 })]);
    expect(review.comments[0]!.body).toContain("No test for negative numbers");
    expect(repository().reactions.some((reaction) => reaction.target === `issues/${pullNumber}`)).toBe(true);
  }, 60_000);

  it("pauses and resumes a pull request with labels GitHub keeps, answering each time", async () => {
    expect(pullNumber).toBeGreaterThan(0);
    const labels = () => repository().labels.get(pullNumber) ?? [];
    const say = async (body: string, deliveryId: string) => {
      const commentId = github.addComment(OWNER, REPO, pullNumber, body, "alice");
      const payload = issueCommentPayload({
        issueNumber: pullNumber,
        commentId,
        body,
        login: "alice",
        userId: userOf("alice").id,
      });
      payload["issue"].pull_request = { url: `${github.apiUrl}/repos/${OWNER}/${REPO}/pulls/${pullNumber}` };
      payload["issue"].labels = labels().map((name) => ({ name }));
      const before = repository().comments.length;
      expect((await send("issue_comment", deliveryId, payload)).status).toBe(200);
      await waitFor(() => repository().comments.length > before, `the answer to ${body}`, 10_000);
      return repository().comments.at(-1)!.body;
    };
    expect(await say("@agentforge pause", "pause-1")).toContain("Paused");
    expect(labels()).toEqual([PAUSED_LABEL]);
    expect(await say("@agentforge resume", "resume-1")).toContain("Resumed");
    expect(labels()).toEqual([]);
  }, 30_000);
});
