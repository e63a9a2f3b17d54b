import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import {
  startMockModelServer,
  type MockModelServer,
  type RecordedRequest,
} from "../../../src/mock-model/start-mock-model-server.js";
import { sendSignedWebhook } from "../../support/github-stand-in/send-signed-webhook.js";
import { threadResolvedBy } from "../../support/github-stand-in/graphql-review-thread-routes.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { waitFor } from "../support/run-cli.js";
import { startAppProcess, type AppProcess } from "./app-processes.js";
import { OWNER, privateKey, PROJECT_FILES, REPO, script, WEBHOOK_SECRET } from "./app-fixture.js";
import { standInPayload, type Payload } from "./conversation-payloads.js";

const FIRST = "function mul(a, b) {\n  return a * b; // FIRST_PUSH\n}\nmodule.exports = { mul };\n";
const SECOND = "function mul(a, b) {\n  return a * b; // SECOND_PUSH\n}\nmodule.exports = { mul };\n";
const FINDING = [
  {
    path: "mul.js",
    line: 2,
    severity: "medium",
    category: "correctness",
    title: "No test for mul",
    body: "mul is not covered.",
  },
];

/** Commits `mul.js` with this content on `feature` (made from main the first time) and pushes it. */
function pushFeature(github: GitHubStandIn, content: string): string {
  const work = mkdtempSync(path.join(tmpdir(), "agentforge-superseded-"));
  try {
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: work,
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "b",
          GIT_AUTHOR_EMAIL: "b@example.com",
          GIT_COMMITTER_NAME: "b",
          GIT_COMMITTER_EMAIL: "b@example.com",
        },
      });
    git("clone", "-q", github.repository(OWNER, REPO).bareDir, ".");
    const exists = git("ls-remote", "--heads", "origin", "feature").trim() !== "";
    git("checkout", "-q", ...(exists ? ["feature"] : ["-b", "feature"]));
    writeFileSync(path.join(work, "mul.js"), content);
    git("add", "mul.js");
    git("commit", "-qm", "Change mul");
    git("push", "-q", "origin", "feature");
    return github.branchSha(OWNER, REPO, "feature")!;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A real `pull_request.synchronize` payload for a push from `before` to `after` by alice. */
function synchronizePayload(pullNumber: number, before: string, after: string): Payload {
  const payload = standInPayload("pull_request", "synchronize", "alice");
  payload["number"] = pullNumber;
  payload["before"] = before;
  payload["after"] = after;
  payload["pull_request"] = {
    ...payload["pull_request"],
    number: pullNumber,
    state: "open",
    draft: false,
    labels: [],
    head: { ...payload["pull_request"]["head"], sha: after, ref: "feature" },
  };
  return payload;
}

function asksAbout(request: RecordedRequest, marker: string): boolean {
  return JSON.stringify(request.body ?? "").includes(marker);
}

/**
 * A push that arrives while the pull request's review is running, as deployed (`agentforge
 * serve`, the stand-in, a scripted model): the running review is cancelled at once, its comment
 * says why, and only the review of the new head is posted. The first review's reviewers are held
 * at the model until the cancel shows on GitHub, then answered: nothing of it may be posted.
 * A third push then fixes the line of the finding the second review posted: the next review
 * resolves that thread and names it.
 */
describe("pushes to a pull request under review, as deployed", () => {
  let github: GitHubStandIn;
  let model: MockModelServer;
  let dataDir: string;
  let app: AppProcess | null = null;
  let releaseFirst: () => void = () => undefined;
  let number = 0;
  let secondHead = "";
  const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "agentforge-superseded-"));
    github = await startGitHubStandIn({
      repositories: [
        {
          owner: OWNER,
          name: REPO,
          files: {
            ...PROJECT_FILES,
            ".github/agentforge.yml": 'test_commands: ["node test.js"]\nreview:\n  auto: true\n',
          },
        },
      ],
      permissions: { alice: "write" },
    });
    model = await startMockModelServer({
      // Three reviewers per review: the cancelled one's and the second one's find the same thing,
      // the third one's (after the fix) find nothing.
      script: script([
        { type: "text", text: JSON.stringify(FINDING), times: 6 },
        { type: "text", text: "[]", times: 3 },
      ]),
      beforeAnswer: (request) =>
        asksAbout(request, "FIRST_PUSH") && !asksAbout(request, "SECOND_PUSH")
          ? firstReleased
          : Promise.resolve(),
    });
    app = await startAppProcess("serve", "serve", {
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET,
      PORT: "0",
      HOST: "127.0.0.1",
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-e2e-not-a-real-key-000000000000",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: dataDir,
      NODE_ENV: "test",
    });
  }, 60_000);

  afterAll(async () => {
    releaseFirst();
    if (process.env.AGENTFORGE_E2E_DEBUG) process.stdout.write(`${app?.cli.output().stderr ?? ""}\n`);
    app?.cli.killHard();
    await model?.close();
    await github?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("cancels the first review with its comment edited, and posts only the review of the new head", async () => {
    const base = github.branchSha(OWNER, REPO, "main")!;
    const firstHead = pushFeature(github, FIRST);
    const octokit = new Octokit({ baseUrl: github.apiUrl, auth: github.token });
    const pull = await octokit.request("POST /repos/{owner}/{repo}/pulls", {
      owner: OWNER,
      repo: REPO,
      title: "Add mul",
      head: "feature",
      base: "main",
    });
    number = pull.data.number;
    const send = (deliveryId: string, payload: Payload) =>
      sendSignedWebhook({
        url: `${app!.url}/api/github/webhooks`,
        secret: WEBHOOK_SECRET,
        event: "pull_request",
        deliveryId,
        payload,
      });

    expect((await send("push-1", synchronizePayload(number, base, firstHead))).status).toBe(200);
    // The event the test acts on: the first review's reviewers are asking the model.
    await waitFor(
      () => model.requests.some((request) => asksAbout(request, "FIRST_PUSH")),
      "the first review's reviewers",
      45_000,
    );

    secondHead = pushFeature(github, SECOND);
    expect((await send("push-2", synchronizePayload(number, firstHead, secondHead))).status).toBe(200);
    const comments = () =>
      github.repository(OWNER, REPO).comments.filter((comment) => comment.issueNumber === number);
    const expected = `⏹️ Cancelled: a newer push ${secondHead.slice(0, 7)} arrived; reviewing that instead.`;
    await waitFor(
      () => comments().some((comment) => comment.body.startsWith(expected)),
      "the cancelled review's comment",
      30_000,
    );
    // Only now may the held reviewers answer: the cancelled run must not publish what they say.
    releaseFirst();

    const reviews = () =>
      github.repository(OWNER, REPO).reviews.filter((review) => review.pullNumber === number);
    await waitFor(() => reviews().length > 0, "the review of the new head", 45_000);
    await waitFor(
      () => comments().some((comment) => comment.body.startsWith("✅ Review posted")),
      "the second review's final comment",
      30_000,
    );
    expect(reviews()).toHaveLength(1);
    expect(reviews()[0]!.commitId).toBe(secondHead);
    const cancelled = comments().find((comment) => comment.body.startsWith(expected))!;
    expect(cancelled.history[0]).toContain("Working on it");
    // Every progress comment ends with the hidden marker naming its task.
    const [text, marker] = cancelled.body.split("\n\n<!-- agentforge-task: ");
    expect(text).toBe(`${expected} This run stops here; nothing more is posted or pushed for it.`);
    expect(marker).toMatch(/^[\w-]+ -->$/);
    // The cancelled review's check run is never created either: the one check run is the new head's.
    const checks = github.repository(OWNER, REPO).checkRuns;
    expect(checks.map((check) => check["head_sha"])).toEqual([secondHead]);
    expect(app!.cli.output().stdout + app!.cli.output().stderr).toContain('"msg":"task cancelled"');
  }, 120_000);

  it("resolves the posted finding's thread once a later push fixes its line, and says so", async () => {
    expect(number).toBeGreaterThan(0);
    const reviews = () =>
      github.repository(OWNER, REPO).reviews.filter((review) => review.pullNumber === number);
    const thread = reviews()[0]!.comments[0]!;
    expect(thread).toMatchObject({ path: "mul.js", line: 2 });
    const fixedHead = pushFeature(
      github,
      SECOND.replace("  return a * b; // SECOND_PUSH", "  return Number(a) * Number(b);"),
    );
    const response = await sendSignedWebhook({
      url: `${app!.url}/api/github/webhooks`,
      secret: WEBHOOK_SECRET,
      event: "pull_request",
      deliveryId: "push-3",
      payload: synchronizePayload(number, secondHead, fixedHead),
    });
    expect(response.status).toBe(200);
    await waitFor(() => reviews().length === 2, "the review after the fix", 45_000);
    expect(reviews()[1]!.commitId).toBe(fixedHead);
    expect(reviews()[1]!.body).toContain(`Resolved 1 earlier finding fixed by ${fixedHead.slice(0, 7)}:`);
    expect(reviews()[1]!.body).toContain(`[No test for mul](`);
    expect(threadResolvedBy(github.repository(OWNER, REPO), thread.id)).toBe("agentforge[bot]");
  }, 90_000);
});
