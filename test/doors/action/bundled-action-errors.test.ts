import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const bundle = path.join(root, "dist/action.js");

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
}

/** Runs the bundle as the runner does: a fresh process with only the runner's variables. */
function runBundle(env: Record<string, string>): Promise<Finished> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bundle],
      { env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env }, timeout: 30_000 },
      (error, stdout) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout }),
    );
  });
}

describe("the bundled Action with bad input", () => {
  let temp: string;
  let base: Record<string, string>;

  beforeAll(async () => {
    temp = await mkdtemp(path.join(os.tmpdir(), "agentforge-action-errors-"));
    const eventPath = path.join(temp, "event.json");
    await writeFile(eventPath, JSON.stringify({ inputs: {} }));
    base = {
      GITHUB_EVENT_NAME: "workflow_dispatch",
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: "octo/repo",
      GITHUB_WORKSPACE: temp,
      RUNNER_TEMP: temp,
      HOME: temp,
    };
  });

  afterAll(async () => {
    await rm(temp, { recursive: true, force: true });
  });

  it("fails with exit code 1 and names the missing prompt in run mode", async () => {
    const result = await runBundle({ ...base, INPUT_MODE: "run" });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('::error::input "prompt" is required in run mode');
  });

  it("names a malformed input", async () => {
    const result = await runBundle({ ...base, "INPUT_MAX-TURNS": "lots", INPUT_PROMPT: "x" });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/::error::input "max-turns" must be a whole number.*"lots"/);
  });

  it("says when it is not running in a workflow", async () => {
    const result = await runBundle({ HOME: temp, INPUT_MODE: "run", INPUT_PROMPT: "x" });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("::error::GITHUB_EVENT_NAME is not set");
  });

  it("needs a token for a comment event and masks the model key", async () => {
    const eventPath = path.join(temp, "comment.json");
    await writeFile(
      eventPath,
      JSON.stringify({
        action: "created",
        issue: { number: 3 },
        comment: { id: 9, body: "@agentforge fix this" },
        sender: { login: "octocat", type: "User" },
        repository: { name: "repo", owner: { login: "octo" } },
      }),
    );
    const result = await runBundle({
      ...base,
      GITHUB_EVENT_NAME: "issue_comment",
      GITHUB_EVENT_PATH: eventPath,
      "INPUT_API-KEY": "sk-test-0123456789abcdef",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("::add-mask::sk-test-0123456789abcdef");
    expect(result.stdout).toContain('::error::input "github-token" is required');
  });
});
