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
import {
  startGitHubStandIn,
  userOf,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { readStepOutputs, runActionFromSource } from "./run-bundled-action.js";
import { edit, webhookExample as example } from "./webhook-example.js";

const OWNER = "octo";
const REPO = "hello";

/** A workflow_run.completed step of the Action, against the stand-in and a local model server. */
describe("an Action step on a red workflow run", () => {
  let standIn: GitHubStandIn;
  let temp: string;
  const models: MockModelServer[] = [];

  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), "agentforge-action-ci-"));
    // The workflow token's bot opens the Action's pull requests.
    standIn = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: { "greeting.txt": "helo world\n" } }],
      permissions: { alice: "write" },
      appSlug: "github-actions",
    });
  });
  afterAll(async () => {
    for (const model of models) await model.close();
    await standIn.close();
    await rm(temp, { recursive: true, force: true });
  });

  function pushBranch(branch: string): string {
    const work = mkdtempSync(path.join(os.tmpdir(), "agentforge-action-ci-branch-"));
    try {
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
          cwd: work,
          encoding: "utf8",
        });
      git("clone", "-q", standIn.repository(OWNER, REPO).bareDir, ".");
      git("checkout", "-q", "-b", branch);
      writeFileSync(path.join(work, "NOTES.md"), `${branch}\n`);
      git("add", "NOTES.md");
      git("commit", "-qm", "notes");
      git("push", "-q", "origin", branch);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return standIn.branchSha(OWNER, REPO, branch)!;
  }

  async function step(
    name: string,
    pull: { number: number; headSha: string; headRef: string },
    model: MockModelServer,
  ) {
    const payload = edit(example("workflow_run", "completed"), {
      "repository.name": REPO,
      "repository.full_name": `${OWNER}/${REPO}`,
      "repository.owner.login": OWNER,
      "workflow_run.name": "CI",
      "workflow_run.conclusion": "failure",
      "workflow_run.head_sha": pull.headSha,
      "workflow_run.head_branch": pull.headRef,
    });
    const repositoryId = (payload["repository"] as { id: number }).id;
    edit(payload, {
      "workflow_run.pull_requests": [
        { number: pull.number, head: { ref: pull.headRef, sha: pull.headSha, repo: { id: repositoryId } } },
      ],
    });
    const dir = path.join(temp, name);
    await mkdir(path.join(dir, "runner-temp"), { recursive: true });
    await writeFile(path.join(dir, "event.json"), JSON.stringify(payload));
    await writeFile(path.join(dir, "output.txt"), "");
    await writeFile(path.join(dir, "summary.md"), "");
    const run = await runActionFromSource({
      HOME: dir,
      GITHUB_EVENT_NAME: "workflow_run",
      GITHUB_EVENT_PATH: path.join(dir, "event.json"),
      GITHUB_API_URL: standIn.apiUrl,
      GITHUB_SERVER_URL: standIn.apiUrl.replace(/\/api\/v3$/, ""),
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_WORKSPACE: path.join(dir, "workspace"),
      GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
      GITHUB_OUTPUT: path.join(dir, "output.txt"),
      GITHUB_ACTION: name,
      GITHUB_RUN_ID: "4244",
      RUNNER_TEMP: path.join(dir, "runner-temp"),
      "INPUT_GITHUB-TOKEN": standIn.token,
      "INPUT_API-KEY": "sk-mockkey-0c1d2e3f4a5b6c7d",
      "INPUT_BASE-URL": model.url,
      INPUT_MODEL: "mock-model",
    });
    return { run, outputs: await readStepOutputs(path.join(dir, "output.txt")) };
  }

  it("fixes the bot's own pull request from the failing job's report, and skips a person's without a word", async () => {
    const headRef = "agentforge/issue-7";
    const headSha = pushBranch(headRef);
    const octokit = new Octokit({ baseUrl: standIn.apiUrl, auth: standIn.token });
    const created = await octokit.request("POST /repos/{owner}/{repo}/pulls", {
      owner: OWNER,
      repo: REPO,
      title: "notes",
      head: headRef,
      base: "main",
    });
    standIn.addCheckRun(OWNER, REPO, {
      headSha,
      name: "spelling",
      conclusion: "failure",
      appSlug: "github-actions",
      output: { summary: "greeting.txt: 'helo' is misspelled" },
      annotations: [{ path: "greeting.txt", startLine: 1, message: "helo -> hello" }],
      log: "2026-12-02T06:00:00Z codespell greeting.txt\n2026-12-02T06:00:01Z greeting.txt:1: helo ==> hello\n",
    });
    const model = await startMockModelServer({
      script: {
        steps: [
          {
            type: "tool_calls",
            calls: [{ name: "write_file", arguments: { path: "greeting.txt", content: "hello world\n" } }],
          },
          { type: "text", text: "Fixed the spelling." },
        ],
      },
    });
    models.push(model);
    const fixed = await step("bot-pull", { number: created.data.number, headSha, headRef }, model);
    expect({ code: fixed.run.code, result: fixed.outputs["result"] }).toEqual({
      code: 0,
      result: "pull-request-updated",
    });
    const asked = JSON.stringify(model.requests.map((request) => request.body ?? null));
    expect(asked).toContain("greeting.txt: 'helo' is misspelled");
    expect(asked).toContain("greeting.txt:1 [failure] helo -> hello");
    expect(asked).toContain("greeting.txt:1: helo ==> hello");
    expect(standIn.branchSha(OWNER, REPO, headRef)).not.toBe(headSha);

    // alice's pull request: skipped before any comment, the model never asked.
    const personRef = "alice/notes";
    const personSha = pushBranch(personRef);
    const repository = standIn.repository(OWNER, REPO);
    const number = repository.nextNumber++;
    repository.pulls.set(number, {
      number,
      title: "alice's notes",
      body: "",
      head: personRef,
      base: "main",
      draft: false,
      state: "open",
      user: userOf("alice"),
    });
    repository.issues.set(number, {
      number,
      title: "alice's notes",
      body: "",
      user: userOf("alice"),
      isPullRequest: true,
    });
    const idle = await startMockModelServer({ script: { steps: [{ type: "text", text: "never asked" }] } });
    models.push(idle);
    const comments = repository.comments.length;
    const skipped = await step("person-pull", { number, headSha: personSha, headRef: personRef }, idle);
    expect({ code: skipped.run.code, result: skipped.outputs["result"] }).toEqual({
      code: 0,
      result: "skipped",
    });
    expect(repository.comments.length).toBe(comments);
    expect(idle.requests.filter((request) => request.body !== undefined)).toEqual([]);
  }, 120_000);
});
