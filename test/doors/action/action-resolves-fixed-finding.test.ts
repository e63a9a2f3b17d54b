import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Octokit } from "@octokit/rest";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { threadResolvedBy } from "../../support/github-stand-in/graphql-review-thread-routes.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { readStepOutputs, runActionFromSource } from "./run-bundled-action.js";
import { edit, webhookExample as example } from "./webhook-example.js";

const OWNER = "octo";
const REPO = "calc";
const BEFORE = "function div(a, b) {\n  return a / b;\n}\nmodule.exports = { div };\n";
const AFTER =
  "function div(a, b) {\n  if (b === 0) throw new RangeError('b is zero');\n  return a / b;\n}\nmodule.exports = { div };\n";
const FINDING = JSON.stringify([
  {
    path: "div.js",
    line: 2,
    severity: "high",
    category: "correctness",
    title: "Division by zero",
    body: "b is not checked.",
  },
]);

/**
 * The Action's review path with the workflow token: a review on `opened`, then a push that fixes
 * the finding's line and the review on `synchronize` resolves the thread and says so. The
 * stand-in names the token's reviews `github-actions[bot]`, as GitHub does.
 */
describe("an Action review resolves its own finding a later push fixed", () => {
  let standIn: GitHubStandIn;
  let temp: string;
  const models: MockModelServer[] = [];

  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), "agentforge-action-resolve-"));
    standIn = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: { "README.md": "calc\n" } }],
      appSlug: "github-actions",
    });
  });
  afterAll(async () => {
    for (const model of models) await model.close();
    await standIn.close();
    await rm(temp, { recursive: true, force: true });
  });

  function pushFeature(content: string): string {
    const work = mkdtempSync(path.join(os.tmpdir(), "agentforge-action-push-"));
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
      git("clone", "-q", standIn.repository(OWNER, REPO).bareDir, ".");
      const exists = git("ls-remote", "--heads", "origin", "feature").trim() !== "";
      git("checkout", "-q", ...(exists ? ["feature"] : ["-b", "feature"]));
      writeFileSync(path.join(work, "div.js"), content);
      git("add", "div.js");
      git("commit", "-qm", "Change div");
      git("push", "-q", "origin", "feature");
      return standIn.branchSha(OWNER, REPO, "feature")!;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  async function reviewStep(
    step: string,
    action: string,
    number: number,
    head: string,
    answer: string,
    before?: string,
  ) {
    const model = await startMockModelServer({
      script: { steps: [{ type: "text", text: answer, times: 3 }] },
    });
    models.push(model);
    const payload = edit(example("pull_request", action), {
      "repository.name": REPO,
      "repository.full_name": `${OWNER}/${REPO}`,
      "repository.owner.login": OWNER,
      "sender.login": "alice",
      "sender.type": "User",
      number,
      "pull_request.number": number,
      "pull_request.state": "open",
      "pull_request.draft": false,
      "pull_request.labels": [],
      "pull_request.head.sha": head,
      "pull_request.head.ref": "feature",
      ...(before === undefined ? {} : { before, after: head }),
    });
    const dir = path.join(temp, step);
    await mkdir(path.join(dir, "runner-temp"), { recursive: true });
    await writeFile(path.join(dir, "event.json"), JSON.stringify(payload));
    await writeFile(path.join(dir, "output.txt"), "");
    await writeFile(path.join(dir, "summary.md"), "");
    const run = await runActionFromSource({
      HOME: dir,
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: path.join(dir, "event.json"),
      GITHUB_API_URL: standIn.apiUrl,
      GITHUB_SERVER_URL: standIn.apiUrl.replace(/\/api\/v3$/, ""),
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_WORKSPACE: path.join(dir, "workspace"),
      GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
      GITHUB_OUTPUT: path.join(dir, "output.txt"),
      GITHUB_ACTION: step,
      GITHUB_RUN_ID: "4250",
      RUNNER_TEMP: path.join(dir, "runner-temp"),
      "INPUT_GITHUB-TOKEN": standIn.token,
      "INPUT_API-KEY": "sk-mockkey-0c1d2e3f4a5b6c7d",
      "INPUT_BASE-URL": model.url,
      INPUT_MODEL: "mock-model",
    });
    return { run, outputs: await readStepOutputs(path.join(dir, "output.txt")) };
  }

  it("resolves the thread through GraphQL with the workflow token and names it in the new review", async () => {
    const firstHead = pushFeature(BEFORE);
    const octokit = new Octokit({ baseUrl: standIn.apiUrl, auth: standIn.token });
    const number = (
      await octokit.request("POST /repos/{owner}/{repo}/pulls", {
        owner: OWNER,
        repo: REPO,
        title: "Add div",
        head: "feature",
        base: "main",
      })
    ).data.number;
    const first = await reviewStep("first", "opened", number, firstHead, FINDING);
    expect({ code: first.run.code, result: first.outputs["result"] }).toEqual({
      code: 0,
      result: "review-posted",
    });
    const state = standIn.repository(OWNER, REPO);
    const thread = state.reviews[0]!.comments[0]!;
    expect(thread).toMatchObject({ path: "div.js", line: 2 });

    const secondHead = pushFeature(AFTER);
    const second = await reviewStep("second", "synchronize", number, secondHead, "[]", firstHead);
    expect({ code: second.run.code, result: second.outputs["result"] }).toEqual({
      code: 0,
      result: "review-posted",
    });
    expect(threadResolvedBy(state, thread.id)).toBe("github-actions[bot]");
    expect(state.reviews.at(-1)!.body).toContain(
      `Resolved 1 earlier finding fixed by ${secondHead.slice(0, 7)}:`,
    );
  }, 120_000);
});
