import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/doors/cli/main.js";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { DISCARDED_MARK } from "../../../src/core/loop/index.js";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";

function terminal(isTty: boolean, env: NodeJS.ProcessEnv): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    isTty,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    readStdin: async () => "",
    out: () => out,
    err: () => err,
  };
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

const FINAL = "The answer is 42, and it was found in notes.txt.";

/** The real CLI and its real renderer, against the mock model, writing into buffers. */
describe("terminal output under retries and streams", () => {
  let dir: string;
  let repo: string;
  let server: MockModelServer | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-render-"));
    repo = join(dir, "repo");
    mkdirSync(repo);
    execFileSync("git", ["init", "-q"], { cwd: repo });
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(script: MockScript, isTty: boolean, extra: string[] = []) {
    server = await startMockModelServer({ script });
    const io = terminal(isTty, {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-local",
      AGENTFORGE_MODEL: "mock-model",
      AGENTFORGE_DATA_DIR: join(dir, "data"),
    });
    const code = await main(["run", "find the answer", "--cwd", repo, "--approval", "never", ...extra], io);
    return { code, io, requests: server.requests };
  }

  it("marks streamed text that a retry discards, on its own line, and prints the final answer once", async () => {
    const { code, io, requests } = await run(
      {
        steps: [
          // A role chunk and two pieces of text reach the terminal, then the connection drops.
          { type: "text", text: "A first draft that never ends", cut_after_chunks: 3 },
          { type: "text", text: FINAL },
        ],
      },
      true,
    );
    expect(code).toBe(0);
    expect(requests.filter((request) => request.body?.stream === true)).toHaveLength(2);
    const lines = io.err().split("\n");
    const cut = lines.indexOf("A first draft th");
    expect(cut).toBeGreaterThan(-1);
    expect(lines[cut + 1]).toBe(DISCARDED_MARK);
    expect(lines[cut + 2]).toMatch(/^ {2}model retry 2 in \d+ ms: /);
    // Streamed whole to the terminal, so not printed again.
    expect(count(io.err() + io.out(), FINAL)).toBe(1);
    expect(lines).toContain(FINAL);
    expect(io.out()).toBe("");
  });

  it("with --no-stream asks for whole messages and shows each once", async () => {
    const { code, io, requests } = await run(
      {
        steps: [
          {
            type: "tool_calls",
            text: "I will look at the folder first.\nThen answer.",
            calls: [{ name: "list_dir", arguments: { path: "." } }],
          },
          { type: "text", text: FINAL },
        ],
      },
      true,
      ["--no-stream"],
    );
    expect(code).toBe(0);
    expect(
      requests.filter((request) => request.body !== undefined && request.body.stream !== true),
    ).toHaveLength(2);
    expect(io.err()).toContain("  │ I will look at the folder first.\n  │ Then answer.\n  → list_dir");
    expect(count(io.err(), FINAL)).toBe(0);
    expect(io.out()).toBe(`${FINAL}\n`);
  });

  it("in a log (no terminal) shows the retry, no partial text, and the answer once on stdout", async () => {
    const { code, io } = await run(
      {
        steps: [
          { type: "text", text: "A first draft that never ends", cut_after_chunks: 3 },
          { type: "text", text: FINAL },
        ],
      },
      false,
    );
    expect(code).toBe(0);
    expect(io.err()).not.toContain("A first draft");
    expect(io.err()).not.toContain(DISCARDED_MARK);
    expect(io.err()).toMatch(/\n {2}model retry 2 in \d+ ms: /);
    expect(count(io.err() + io.out(), FINAL)).toBe(1);
    expect(io.out()).toBe(`${FINAL}\n`);
  });
});
