import { afterAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseMockScript } from "../../src/mock-model/mock-script.js";
import { startMockModelServer, type MockModelServer } from "../../src/mock-model/start-mock-model-server.js";
import { runCli } from "./support/run-cli.js";

describe("agentforge review", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-review-"));
  let server: MockModelServer | undefined;
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reviews the changes since the default branch, uncommitted and new files included, listing each finding once", async () => {
    const repo = join(dir, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: repo,
      });
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "src", "div.js"), "export function div(a, b) {\n  return a / b;\n}\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    git("checkout", "-qb", "feature");
    writeFileSync(
      join(repo, "src", "div.js"),
      "export function div(a, b) {\n  const q = a / b;\n  return Math.round(q);\n}\n",
    );
    git("commit", "-qam", "round");
    // Not committed: an edit of a tracked file and a new file.
    writeFileSync(
      join(repo, "src", "div.js"),
      "export function div(a, b) {\n  const q = a / b;\n  return Math.round(q); // uncommitted\n}\n",
    );
    writeFileSync(join(repo, "src", "fresh.js"), "export const fresh = 1;\n");

    // Every reviewer reports the same finding: it is listed once, with the concerns that saw it.
    const finding = [
      {
        path: "src/div.js",
        line: 3,
        severity: "high",
        category: "correctness",
        title: "Rounding changes results",
        body: "div(1, 2) now returns 1 instead of 0.5.\u001b[2J",
      },
    ];
    const script = parseMockScript({ steps: [{ type: "text", text: JSON.stringify(finding), times: 6 }] });
    if (!script.success) throw new Error(script.error);
    server = await startMockModelServer({ script: script.value });
    const env = { OPENAI_BASE_URL: server.url, AGENTFORGE_DATA_DIR: join(dir, "data") };
    const result = await runCli(["review", "--cwd", repo, "--json"], env);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.base).toBe("main");
    expect(output.findings).toHaveLength(1);
    expect(output.findings[0]).toMatchObject({
      path: "src/div.js",
      line: 3,
      severity: "high",
      title: "Rounding changes results",
    });
    // Three reviewers asked side by side, each with the diff fenced as data, uncommitted work in it.
    const chat = server.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chat).toHaveLength(3);
    const asked = JSON.stringify(chat[0]!.body);
    expect(asked).toContain("UNTRUSTED");
    expect(asked).toContain("// uncommitted");
    expect(asked).toContain("b/src/fresh.js");

    const text = await runCli(["review", "--cwd", repo, "--fail-on", "high"], env);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("1 finding (1 high) in the changes since main");
    expect(text.stdout).toContain("HIGH  src/div.js:3  correctness  Rounding changes results");
    expect(text.stdout).not.toContain("<!--");
    expect(text.stdout).not.toContain("\u001b");
    expect(text.stderr).toContain("--fail-on high");
  }, 90_000);

  it("answers an unknown --fail-on severity with the ones there are", async () => {
    const result = await runCli(["review", "--cwd", dir, "--fail-on", "severe"], {});
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("critical, high, medium, low");
  }, 30_000);
});
