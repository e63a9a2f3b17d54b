import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import { git, readFileAt } from "../../support/github-stand-in/bare-repository.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { copyBundleOutsideRepository, readStepOutputs, runBundledAction } from "./run-bundled-action.js";
import { edit, webhookExample as example, type JsonObject } from "./webhook-example.js";

const OWNER = "octo";
const REPO = "hello";
const MODEL_KEY = "sk-mockkey-4f9c2a7d1e8b3f6a";

/** A real payload, pointed at the stand-in's repository. */
function withRepository(payload: JsonObject, sender: string): JsonObject {
  return edit(payload, {
    "repository.name": REPO,
    "repository.full_name": `${OWNER}/${REPO}`,
    "repository.owner.login": OWNER,
    "sender.login": sender,
    "sender.type": "User",
  });
}

describe("the bundled Action against a GitHub stand-in and a scripted model", () => {
  let standIn: GitHubStandIn;
  let temp: string;
  const models: MockModelServer[] = [];
  let bundlePath: string;

  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), "agentforge-action-e2e-"));
    bundlePath = await copyBundleOutsideRepository(path.join(temp, "action"));
    standIn = await startGitHubStandIn({
      repositories: [
        {
          owner: OWNER,
          name: REPO,
          files: { "greeting.txt": "helo world\n", "README.md": "# hello\n" },
        },
      ],
      permissions: { alice: "write", mallory: "read" },
    });
  });

  afterAll(async () => {
    for (const model of models) await model.close();
    await standIn.close();
    await rm(temp, { recursive: true, force: true });
  });

  /** A fresh runner folder and the variables GitHub sets for one step. */
  async function stepEnvironment(
    name: string,
    eventName: string,
    payload: unknown,
    model: MockModelServer | null,
  ): Promise<{ env: Record<string, string>; dir: string }> {
    const dir = path.join(temp, name);
    await mkdir(path.join(dir, "workspace"), { recursive: true });
    await mkdir(path.join(dir, "runner-temp"), { recursive: true });
    await mkdir(path.join(dir, "home"), { recursive: true });
    const eventPath = path.join(dir, "event.json");
    await writeFile(eventPath, JSON.stringify(payload));
    // The runner creates these files before the step starts; @actions/core appends to them.
    await writeFile(path.join(dir, "output.txt"), "");
    await writeFile(path.join(dir, "summary.md"), "");
    return {
      dir,
      env: {
        HOME: path.join(dir, "home"),
        GITHUB_EVENT_NAME: eventName,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_API_URL: standIn.apiUrl,
        GITHUB_SERVER_URL: standIn.apiUrl.replace(/\/api\/v3$/, ""),
        GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
        GITHUB_WORKSPACE: path.join(dir, "workspace"),
        GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
        GITHUB_OUTPUT: path.join(dir, "output.txt"),
        GITHUB_RUN_ID: "4242",
        GITHUB_ACTOR: "alice",
        RUNNER_TEMP: path.join(dir, "runner-temp"),
        INPUT_MODE: "auto",
        "INPUT_GITHUB-TOKEN": standIn.token,
        INPUT_APPROVAL: "never",
        "INPUT_API-KEY": MODEL_KEY,
        ...(model ? { "INPUT_BASE-URL": model.url } : {}),
        INPUT_MODEL: "mock-model",
      },
    };
  }

  async function startModel(script: MockScript): Promise<MockModelServer> {
    const model = await startMockModelServer({ script });
    models.push(model);
    return model;
  }

  let pullNumber = 0;
  let branch = "";

  it("a fix command in an issue comment opens a pull request, with outputs, summary and trace", async () => {
    const issue = standIn.addIssue(OWNER, REPO, {
      title: "Typo",
      body: "greeting.txt says helo",
      author: "alice",
    });
    const commentId = standIn.addComment(OWNER, REPO, issue, "@agentforge fix this", "alice");
    const payload = edit(withRepository(example("issue_comment", "created"), "alice"), {
      "issue.number": issue,
      "issue.pull_request": undefined,
      "comment.id": commentId,
      "comment.body": "@agentforge fix this",
    });
    const model = await startModel({
      steps: [
        {
          type: "tool_calls",
          calls: [{ name: "write_file", arguments: { path: "greeting.txt", content: "hello world\n" } }],
        },
        { type: "text", text: "Fixed the typo in greeting.txt." },
      ],
    });
    const { env, dir } = await stepEnvironment("fix", "issue_comment", payload, model);
    const run = await runBundledAction(env, { bundlePath });
    expect({ code: run.code, stdout: run.code === 0 ? "" : run.stdout }).toEqual({ code: 0, stdout: "" });

    const outputs = await readStepOutputs(path.join(dir, "output.txt"));
    expect(outputs["result"]).toBe("pull-request-opened");
    // What it cost, from the run: its turns and tokens, and a price nobody knows said as unknown.
    expect(Number(outputs["turns"])).toBeGreaterThan(0);
    expect(Number(outputs["total-tokens"])).toBeGreaterThan(0);
    expect(outputs["cost-usd"]).toBe("unknown");
    const repository = standIn.repository(OWNER, REPO);
    const pulls = [...repository.pulls.values()];
    expect(pulls).toHaveLength(1);
    const pull = pulls[0]!;
    pullNumber = pull.number;
    branch = pull.head;
    expect(outputs["branch"]).toBe(branch);
    expect(outputs["pr-url"]).toContain(`/pull/${pull.number}`);
    expect(readFileAt(repository.bareDir, `refs/heads/${branch}`, "greeting.txt")?.toString()).toBe(
      "hello world\n",
    );
    expect(repository.reactions).toContainEqual({ target: `issues/comments/${commentId}`, content: "eyes" });

    const tracePath = outputs["trace-path"]!;
    // A folder of this step's own under ${RUNNER_TEMP}/agentforge/.
    expect(path.dirname(path.dirname(tracePath))).toBe(path.join(dir, "runner-temp", "agentforge"));
    expect(path.basename(tracePath)).toBe("trace.jsonl");
    expect(existsSync(tracePath.replace(/\.jsonl$/, ".html"))).toBe(true);
    const summary = await readFile(path.join(dir, "summary.md"), "utf8");
    expect(summary).toContain("## AgentForge: fix #");
    expect(summary).toContain("pull request opened");
    expect(summary).toMatch(/\| \d+ \| write_file greeting\.txt \| ✅/);

    // No credential anywhere the step wrote or posted.
    const trace = await readFile(tracePath, "utf8");
    const posted = repository.comments.map((comment) => comment.history.join("\n")).join("\n") + pull.body;
    for (const text of [trace, summary, posted, run.stdout.replace(/::add-mask::.*\n/g, "")]) {
      expect(text).not.toContain(standIn.token);
      expect(text).not.toContain(MODEL_KEY);
    }
    expect(run.stdout).toContain(`::add-mask::${standIn.token}`);
  }, 90_000);

  it("a pull_request event posts a review with a comment on the changed line", async () => {
    expect(pullNumber).toBeGreaterThan(0);
    const repository = standIn.repository(OWNER, REPO);
    const headSha = git(repository.bareDir, ["rev-parse", `refs/heads/${branch}`]).trim();
    // GitHub keeps every pull request's head under refs/pull/N/head; the stand-in's POST /pulls does not.
    git(repository.bareDir, ["update-ref", `refs/pull/${pullNumber}/head`, headSha]);
    const payload = edit(withRepository(example("pull_request", "opened"), "bob"), {
      number: pullNumber,
      "pull_request.number": pullNumber,
      "pull_request.head.sha": headSha,
      "pull_request.state": "open",
      "pull_request.draft": false,
    });
    const finding = [
      {
        path: "greeting.txt",
        line: 1,
        severity: "low",
        category: "style",
        title: "Capitalize the greeting",
        body: "Sentences start with a capital letter.",
      },
    ];
    const model = await startModel({
      steps: [{ type: "text", text: `\`\`\`json\n${JSON.stringify(finding)}\n\`\`\``, times: "forever" }],
    });
    const { env, dir } = await stepEnvironment("review", "pull_request", payload, model);
    const run = await runBundledAction(env, { bundlePath });
    expect({ code: run.code, stdout: run.code === 0 ? "" : run.stdout }).toEqual({ code: 0, stdout: "" });

    const outputs = await readStepOutputs(path.join(dir, "output.txt"));
    expect(outputs["result"]).toBe("review-posted");
    expect(outputs["turns"]).toBe("");
    expect(Number(outputs["total-tokens"])).toBeGreaterThan(0);
    expect(outputs["cost-usd"]).toBe("unknown");
    const reviews = repository.reviews.filter((review) => review.pullNumber === pullNumber);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.comments).toEqual([
      expect.objectContaining({
        path: "greeting.txt",
        line: 1,
        body: expect.stringContaining("Capitalize the greeting"),
      }),
    ]);
    const summary = await readFile(path.join(dir, "summary.md"), "utf8");
    expect(summary).toContain(`## AgentForge: review #${pullNumber}: review posted`);
  }, 90_000);

  it("a question in a review thread is answered in that thread, with the file and line", async () => {
    expect(pullNumber).toBeGreaterThan(0);
    const repository = standIn.repository(OWNER, REPO);
    const inline = repository.reviews.find((review) => review.pullNumber === pullNumber)?.comments[0];
    expect(inline).toBeDefined();
    const payload = edit(withRepository(example("pull_request_review_comment", "created"), "alice"), {
      "comment.id": inline!.id,
      "comment.body": "@agentforge why capitalize it?",
      "comment.path": "greeting.txt",
      "comment.line": 1,
      "pull_request.number": pullNumber,
      "pull_request.labels": [],
    });
    const model = await startModel({
      steps: [{ type: "text", text: "Because a sentence starts with a capital letter.", times: "forever" }],
    });
    const commentsBefore = repository.comments.length;
    const { env, dir } = await stepEnvironment("thread", "pull_request_review_comment", payload, model);
    const run = await runBundledAction(env, { bundlePath });
    expect({ code: run.code, stdout: run.code === 0 ? "" : run.stdout }).toEqual({ code: 0, stdout: "" });
    expect((await readStepOutputs(path.join(dir, "output.txt")))["result"]).toBe("answered");

    const replies = repository.threadReplies.filter((reply) => reply.inReplyTo === inline!.id);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toContain("Because a sentence starts with a capital letter.");
    // Nothing went to the conversation tab, and the 👀 is on the thread's comment.
    expect(repository.comments.length).toBe(commentsBefore);
    expect(repository.reactions).toContainEqual({ target: `pulls/comments/${inline!.id}`, content: "eyes" });
    const prompt = JSON.stringify(model.requests.find((request) => request.body !== undefined)?.body);
    expect(prompt).toContain("review thread on `greeting.txt` line 1");
  }, 90_000);

  it("ignores a command from someone without write access and posts nothing", async () => {
    const issue = standIn.addIssue(OWNER, REPO, { title: "Another", body: "please", author: "mallory" });
    const commentId = standIn.addComment(OWNER, REPO, issue, "@agentforge fix this", "mallory");
    const payload = edit(withRepository(example("issue_comment", "created"), "mallory"), {
      "issue.number": issue,
      "issue.pull_request": undefined,
      "comment.id": commentId,
      "comment.body": "@agentforge fix this",
    });
    const { env, dir } = await stepEnvironment("unauthorized", "issue_comment", payload, null);
    const repository = standIn.repository(OWNER, REPO);
    const commentsBefore = repository.comments.length;
    const run = await runBundledAction(env, { bundlePath });
    expect(run.code).toBe(0);
    const outputs = await readStepOutputs(path.join(dir, "output.txt"));
    expect(outputs["result"]).toBe("unauthorized");
    expect([outputs["turns"], outputs["total-tokens"], outputs["cost-usd"]]).toEqual(["", "", ""]);
    expect(repository.comments).toHaveLength(commentsBefore);
    expect(await readFile(path.join(dir, "summary.md"), "utf8")).toContain("mallory has read access");
  }, 60_000);
});
