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

  it("reviews base...HEAD with the reviewer panel and anchors findings to changed lines", async () => {
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
    writeFileSync(
      join(repo, "src", "div.js"),
      "export function div(a, b) {\n  const q = a / b;\n  return Math.round(q);\n}\n",
    );
    git("commit", "-qam", "round");

    const finding = [
      {
        path: "src/div.js",
        line: 3,
        severity: "high",
        category: "correctness",
        title: "Rounding changes results",
        body: "div(1, 2) now returns 1 instead of 0.5.",
      },
    ];
    const script = parseMockScript({ steps: [{ type: "text", text: JSON.stringify(finding), times: 3 }] });
    if (!script.success) throw new Error(script.error);
    server = await startMockModelServer({ script: script.value });
    const result = await runCli(["review", "--cwd", repo, "--base", "HEAD~1", "--json"], {
      OPENAI_BASE_URL: server.url,
      AGENTFORGE_DATA_DIR: join(dir, "data"),
    });
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.comments).toHaveLength(1);
    expect(output.comments[0]).toMatchObject({ path: "src/div.js", line: 3 });
    expect(output.body).toContain("1 finding (1 high)");
    expect(output.comments[0].body).toContain("Rounding changes results");
    // Three reviewers asked side by side, each with the diff fenced as data.
    const chat = server.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chat).toHaveLength(3);
    expect(JSON.stringify(chat[0]!.body)).toContain("UNTRUSTED");
  }, 60_000);
});
