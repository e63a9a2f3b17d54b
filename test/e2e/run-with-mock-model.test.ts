import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseMockScript } from "../../src/mock-model/mock-script.js";
import { startMockModelServer, type MockModelServer } from "../../src/mock-model/start-mock-model-server.js";

const BIN = resolve("bin/agentforge.js");

/** Runs the real CLI as a child process; the mock model runs in this process so its requests can be read. */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input = "",
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("agentforge run against agentforge's mock model, end to end", () => {
  let dir: string;
  let server: MockModelServer;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-e2e-"));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("recovers from a wrong path, fixes the bug, runs the tests in the sandbox, and the trace tells that story", async () => {
    const repo = join(dir, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    writeFileSync(join(repo, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    writeFileSync(
      join(repo, "test.js"),
      'import { add } from "./src/math.js";\nif (add(2, 3) !== 5) { console.error("add is wrong"); process.exit(1); }\nconsole.log("tests pass");\n',
    );
    writeFileSync(join(repo, "package.json"), '{ "type": "module" }\n');
    execFileSync("git", ["init", "-q"], { cwd: repo });

    const script = parseMockScript({
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_wrong", name: "read_file", arguments: { path: "src/maths.js" } }],
        },
        {
          type: "tool_calls",
          calls: [{ id: "call_read", name: "read_file", arguments: { path: "src/math.js" } }],
        },
        {
          type: "tool_calls",
          calls: [
            {
              id: "call_edit",
              name: "edit_file",
              arguments: { path: "src/math.js", old_string: "return a - b;", new_string: "return a + b;" },
            },
          ],
        },
        {
          type: "tool_calls",
          calls: [{ id: "call_test", name: "shell", arguments: { command: "node test.js" } }],
        },
        {
          type: "text",
          text: "Fixed add() in src/math.js: it subtracted instead of adding. node test.js passes.",
        },
      ],
    });
    if (!script.success) throw new Error(script.error);
    server = await startMockModelServer({ script: script.value });
    const tracePath = join(dir, "trace.jsonl");
    const result = await runCli(
      [
        "run",
        "fix the add function",
        "--cwd",
        repo,
        "--approval",
        "never",
        "--allow",
        "node test.js",
        "--trace",
        tracePath,
        "--json",
      ],
      {
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: "sk-test-not-a-real-key-000000000000",
        AGENTFORGE_MODEL: "gpt-4.1-mini",
        AGENTFORGE_DATA_DIR: join(dir, "data"),
      },
    );
    expect(result.stderr).not.toContain("Error:");
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output).toMatchObject({ exitReason: "final_answer", turns: 5, filesChanged: ["src/math.js"] });
    expect(output.commandsRun).toEqual([{ command: "node test.js", exitCode: 0, ok: true }]);
    expect(readFileSync(join(repo, "src", "math.js"), "utf8")).toBe(
      "export function add(a, b) {\n  return a + b;\n}\n",
    );

    // Every request after a tool call answers each call by its id, and the wrong path was reported as FILE_NOT_FOUND.
    const bodies = server.requests
      .filter((request) => request.path.endsWith("/chat/completions"))
      .map(
        (request) =>
          request.body as { messages: { role: string; tool_call_id?: string; content?: string }[] },
      );
    expect(bodies).toHaveLength(5);
    const toolMessages = (index: number) =>
      bodies[index]!.messages.filter((message) => message.role === "tool");
    expect(toolMessages(1).map((message) => message.tool_call_id)).toEqual(["call_wrong"]);
    expect(toolMessages(1)[0]!.content).toContain("FILE_NOT_FOUND");
    expect(toolMessages(1)[0]!.content).toContain("src/math.js");
    expect(toolMessages(4).map((message) => message.tool_call_id)).toEqual([
      "call_wrong",
      "call_read",
      "call_edit",
      "call_test",
    ]);
    expect(toolMessages(4)[3]!.content).toContain("tests pass");
    // The sandbox never saw the model key.
    expect(JSON.stringify(bodies)).not.toContain("sk-test-not-a-real-key");

    const story = await runCli(["trace", tracePath], {});
    expect(story.code).toBe(0);
    expect(story.stdout).toMatch(
      /Turn 1\n\s+Model called read_file\(\{"path":"src\/maths.js"\}\)\n\s+→ read_file: error FILE_NOT_FOUND/,
    );
    expect(story.stdout).toMatch(/Turn 3\n\s+Model called edit_file/);
    expect(story.stdout).toMatch(/→ shell: ok/);
    expect(story.stdout).toContain("Stopped: final_answer after 5 turn(s)");
  }, 60_000);

  it("says what to fix when the model endpoint is dead", async () => {
    const result = await runCli(["run", "hello", "--cwd", dir, "--approval", "never"], {
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      AGENTFORGE_DATA_DIR: join(dir, "data2"),
      AGENTFORGE_CONFIG: "",
    });
    expect(result.code).toBe(69);
    expect(result.stderr).toMatch(/OPENAI_BASE_URL/);
  }, 120_000);

  it("explains a broken operator config by naming the key", async () => {
    const config = join(dir, "bad.yml");
    writeFileSync(config, "budgets:\n  max_turns: many\nunknown_key: 1\n");
    const result = await runCli(["run", "hello", "--cwd", dir, "--approval", "never", "--config", config], {
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("budgets.max_turns");
    expect(result.stderr).toContain("unknown_key");
  }, 30_000);
});
