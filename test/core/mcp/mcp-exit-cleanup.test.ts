import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { isProcessAlive, signalProcesses } from "../../../src/core/mcp/child-process-reaper.js";
import { writeFixtureServer } from "./fixture-server.js";
import { waitUntil } from "../../support/wait-until.js";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * A separate process starts an MCP server through the manager and then dies without calling
 * close(). The server ignores its stdin closing, so only the manager's exit hooks can stop it.
 */
describe("MCP child processes when the parent dies without closing", () => {
  let directory: string;
  let bundle: string;
  const leftovers: number[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), "agentforge-mcp-exit-"));
    const fixture = await writeFixtureServer(directory);
    const entry = path.join(directory, "parent.ts");
    await writeFile(
      entry,
      `import { createMcpManager } from ${JSON.stringify(path.join(repoRoot, "src/core/mcp/create-mcp-manager.ts"))};
const manager = createMcpManager({
  child: {
    command: process.execPath,
    args: [${JSON.stringify(fixture)}],
    env: { FIXTURE_IGNORE_STDIN_END: "1", FIXTURE_STDIN_END_FILE: process.env.STDIN_END_FILE ?? "" },
  },
});
await manager.start();
process.stdout.write("pid " + manager.status()[0].pid + "\\n");
const ending = process.argv[2];
if (ending === "throw") setImmediate(() => { throw new Error("parent crashed"); });
setInterval(() => {}, 1000);
`,
      "utf8",
    );
    bundle = path.join(directory, "parent.mjs");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: bundle,
      logLevel: "silent",
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
  });

  afterAll(async () => {
    signalProcesses(leftovers.filter(isProcessAlive), "SIGKILL");
    await rm(directory, { recursive: true, force: true });
  });

  async function runParent(ending: string): Promise<{ serverPid: number; code: number }> {
    const parent = spawn(process.execPath, [bundle, ending], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    parent.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    parent.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let hasExited = false;
    const exited = new Promise<number>((resolve) =>
      parent.on("exit", (exitCode, signal) => {
        hasExited = true;
        resolve(exitCode ?? (signal ? -1 : 0));
      }),
    );
    await waitUntil(() => /pid \d+/.test(stdout) || hasExited, "the parent to print its server's pid", {
      timeoutMs: 15_000,
    });
    const serverPid = Number(/pid (\d+)/.exec(stdout)?.[1]);
    if (!Number.isInteger(serverPid)) throw new Error(`the parent printed no pid; stderr: ${stderr}`);
    leftovers.push(serverPid);
    if (ending === "sigterm") parent.kill("SIGTERM");
    return { serverPid, code: await exited };
  }

  it.each(["throw", "sigterm"])("leaves no server behind when the parent ends by %s", async (ending) => {
    const { serverPid, code } = await runParent(ending);
    expect(code).not.toBe(0);
    await waitUntil(() => !isProcessAlive(serverPid), "the server to exit", { timeoutMs: 2_000 });
  });

  it("really needs the hooks: a parent killed with SIGKILL (no hooks run) leaves this server running", async () => {
    const stdinEnded = path.join(directory, "stdin-ended");
    const parent = spawn(process.execPath, [bundle, "wait"], {
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, STDIN_END_FILE: stdinEnded },
    });
    let stdout = "";
    parent.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    await waitUntil(() => /pid \d+/.test(stdout), "the parent to print its server's pid", {
      timeoutMs: 15_000,
    });
    const serverPid = Number(/pid (\d+)/.exec(stdout)?.[1]);
    leftovers.push(serverPid);
    parent.kill("SIGKILL");
    await new Promise((resolve) => parent.on("exit", resolve));
    // The server has seen its client go (the only other thing that could end it): it is still running.
    await waitUntil(() => existsSync(stdinEnded), "the server to see its stdin end");
    expect(isProcessAlive(serverPid)).toBe(true);
  });
});
