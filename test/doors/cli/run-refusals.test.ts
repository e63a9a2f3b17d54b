import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { main } from "../../../src/doors/cli/main.js";
import { NO_TERMINAL_FOR_APPROVAL } from "../../../src/doors/cli/run-command.js";
import { parseMockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";

function captureIo(env: NodeJS.ProcessEnv): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    isTty: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENTFORGE_CONFIG: "", ...env },
    readStdin: async () => "",
    out: () => out,
    err: () => err,
  };
}

describe("a run that did nothing does not pass for one that did", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-refusals-"));
  const repo = join(dir, "repo");
  let server: MockModelServer | undefined;
  beforeAll(() => {
    mkdirSync(repo);
    writeFileSync(join(repo, "test.js"), "process.exit(1);\n");
    execFileSync("git", ["init", "-q"], { cwd: repo });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to start without a terminal and without --approval, naming the flags", async () => {
    const io = captureIo({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(await main(["run", "fix it", "--cwd", repo], io)).toBe(64);
    expect(io.err()).toBe(`agentforge run: ${NO_TERMINAL_FOR_APPROVAL}\n`);
    expect(io.err()).toContain("--approval never");
    expect(io.err()).toContain("--allow");
  });

  it("exits 1 and says so last when every action was refused, even with a final answer claiming success", async () => {
    const script = parseMockScript({
      steps: [
        { type: "tool_calls", calls: [{ name: "shell", arguments: { command: "npm install left-pad" } }] },
        { type: "tool_calls", calls: [{ name: "shell", arguments: { command: "node test.js" } }] },
        { type: "text", text: "Done: node test.js passes." },
      ],
    });
    if (!script.success) throw new Error(script.error);
    server = await startMockModelServer({ script: script.value });
    const trace = join(dir, "trace.jsonl");
    const env = {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "test",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: join(dir, "data"),
    };
    // --allow is single-valued and repeatable: the prompt after it stays the prompt.
    const io = captureIo(env);
    const code = await main(
      ["run", "--approval", "never", "--allow", "npm test", "fix it", "--cwd", repo, "--trace", trace],
      io,
    );
    expect(code).toBe(1);
    const lines = io.err().trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(/^refused: every action the model tried was refused \(2 of 2\)/);
    expect(io.err()).toContain("finished: final_answer · 2 refused");
    const requests = server.requests.filter((request) => request.path.endsWith("/chat/completions"));
    const firstBody = requests[0]!.body as { messages: { role: string; content: string }[] };
    expect(firstBody.messages.find((message) => message.role === "user")?.content).toContain("fix it");

    const footer = JSON.parse(readFileSync(trace, "utf8").trimEnd().split("\n").at(-1)!) as Record<
      string,
      unknown
    >;
    expect(footer).toMatchObject({ record: "footer", actions: { attempted: 2, refused: 2 } });
    const story = captureIo({});
    const html = join(dir, "report.html");
    expect(await main(["trace", trace, "--html", html], story)).toBe(0);
    expect(story.out()).toContain("Every action was refused (2 of 2)");
    expect(readFileSync(html, "utf8")).toContain("<strong>Every action was refused</strong> (2 of 2)");
  }, 60_000);
});
