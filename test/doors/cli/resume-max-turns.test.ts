import { afterAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { main } from "../../../src/doors/cli/main.js";
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

describe("--resume after a turn-limit stop", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentforge-resume-turns-"));
  let server: MockModelServer | undefined;
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("continues under the new --max-turns", async () => {
    const repo = join(dir, "repo");
    mkdirSync(repo);
    execFileSync("git", ["init", "-q"], { cwd: repo });
    const script = parseMockScript({
      steps: [
        { type: "tool_calls", calls: [{ name: "list_dir", arguments: { path: "." } }] },
        { type: "tool_calls", calls: [{ name: "list_dir", arguments: { path: "." } }] },
        { type: "text", text: "All listed." },
      ],
    });
    if (!script.success) throw new Error(script.error);
    server = await startMockModelServer({ script: script.value });
    const env = {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "test",
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: join(dir, "data"),
    };
    const first = captureIo(env);
    const args = ["--approval", "never", "--cwd", repo, "--json"];
    expect(await main(["run", "list the files", ...args, "--max-turns", "1"], first)).toBe(1);
    const stopped = JSON.parse(first.out()) as { runId: string; exitReason: string; turns: number };
    expect(stopped).toMatchObject({ exitReason: "max_turns", turns: 1 });

    const resumed = captureIo(env);
    expect(await main(["run", "--resume", stopped.runId, "--max-turns", "5", "--json"], resumed)).toBe(0);
    expect(JSON.parse(resumed.out())).toMatchObject({
      exitReason: "final_answer",
      finalAnswer: "All listed.",
    });
  }, 60_000);
});
