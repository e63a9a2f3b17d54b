import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../support/github-stand-in/start-github-stand-in.js";
import { readStepOutputs, runActionFromSource, type BundledRun } from "./run-bundled-action.js";
import { edit, webhookExample as example } from "./webhook-example.js";

const OWNER = "octo";
const REPO = "hello";

/** `@agentforge fix this with <model>` in an Action step, against the stand-in and a real local model server. */
describe("an Action step asked for a model with `with <model>`", () => {
  let standIn: GitHubStandIn;
  let temp: string;
  const models: MockModelServer[] = [];

  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), "agentforge-action-model-"));
    standIn = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: { "greeting.txt": "helo world\n" } }],
      permissions: { alice: "write" },
    });
  });
  afterAll(async () => {
    for (const model of models) await model.close();
    await standIn.close();
    await rm(temp, { recursive: true, force: true });
  });

  async function commentStep(
    step: string,
    body: string,
    script: MockScript,
  ): Promise<{ run: BundledRun; outputs: Record<string, string>; model: MockModelServer; issue: number }> {
    const model = await startMockModelServer({ script });
    models.push(model);
    const issue = standIn.addIssue(OWNER, REPO, { title: "Typo", body: "helo", author: "alice" });
    const commentId = standIn.addComment(OWNER, REPO, issue, body, "alice");
    const payload = edit(example("issue_comment", "created"), {
      "repository.name": REPO,
      "repository.full_name": `${OWNER}/${REPO}`,
      "repository.owner.login": OWNER,
      "sender.login": "alice",
      "sender.type": "User",
      "issue.number": issue,
      "issue.pull_request": undefined,
      "comment.id": commentId,
      "comment.body": body,
    });
    const dir = path.join(temp, step);
    await mkdir(path.join(dir, "runner-temp"), { recursive: true });
    await writeFile(path.join(dir, "event.json"), JSON.stringify(payload));
    await writeFile(path.join(dir, "output.txt"), "");
    await writeFile(path.join(dir, "summary.md"), "");
    const run = await runActionFromSource({
      HOME: dir,
      GITHUB_EVENT_NAME: "issue_comment",
      GITHUB_EVENT_PATH: path.join(dir, "event.json"),
      GITHUB_API_URL: standIn.apiUrl,
      GITHUB_SERVER_URL: standIn.apiUrl.replace(/\/api\/v3$/, ""),
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_WORKSPACE: path.join(dir, "workspace"),
      GITHUB_STEP_SUMMARY: path.join(dir, "summary.md"),
      GITHUB_OUTPUT: path.join(dir, "output.txt"),
      GITHUB_ACTION: step,
      GITHUB_RUN_ID: "4243",
      RUNNER_TEMP: path.join(dir, "runner-temp"),
      "INPUT_GITHUB-TOKEN": standIn.token,
      "INPUT_API-KEY": "sk-mockkey-0c1d2e3f4a5b6c7d",
      "INPUT_BASE-URL": model.url,
      INPUT_MODEL: "mock-model",
      "INPUT_ALLOWED-MODELS": "chosen-model\nother-model",
    });
    return { run, outputs: await readStepOutputs(path.join(dir, "output.txt")), model, issue };
  }

  const chatModels = (model: MockModelServer) =>
    model.requests.filter((request) => request.body !== undefined).map((request) => request.model);
  const lastComment = (issue: number) =>
    standIn
      .repository(OWNER, REPO)
      .comments.filter((comment) => comment.issueNumber === issue)
      .at(-1)?.body;

  it("refuses a model outside the list before any model call, and runs a fix with one from allowed-models", async () => {
    const step = await commentStep("allowed", "@agentforge fix this with chosen-model-1", {
      steps: [{ type: "text", text: "never asked" }],
    });
    // `chosen-model-1` is not in the list: refused with the list, the step fails, nothing reaches the model.
    expect(step.outputs["result"]).toBe("failed");
    expect(step.run.code).toBe(1);
    expect(chatModels(step.model)).toEqual([]);
    expect(lastComment(step.issue)).toBe(
      "`chosen-model-1` is not one of the models this installation allows: mock-model, chosen-model, other-model.",
    );

    const allowed = await commentStep("chosen", "@agentforge fix this with chosen-model", {
      steps: [
        {
          type: "tool_calls",
          calls: [{ name: "write_file", arguments: { path: "greeting.txt", content: "hello world\n" } }],
          model: "chosen-model",
        },
        { type: "text", text: "Fixed the typo.", model: "chosen-model" },
      ],
    });
    expect({
      code: allowed.run.code,
      out: allowed.run.code === 0 ? "" : allowed.run.stdout + lastComment(allowed.issue),
    }).toEqual({
      code: 0,
      out: "",
    });
    expect(allowed.outputs["result"]).toBe("pull-request-opened");
    expect(chatModels(allowed.model)).toEqual(["chosen-model", "chosen-model"]);
    expect(lastComment(allowed.issue)).toContain("`chosen-model` · 2 turns");
  }, 120_000);
});
