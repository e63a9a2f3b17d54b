import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMcpManager, type McpManager } from "../../../src/core/mcp/create-mcp-manager.js";
import { isProcessAlive, listDescendantPids } from "../../../src/core/mcp/child-process-reaper.js";
import type { Tool, ToolContext } from "../../../src/core/tools/tool.js";
import { writeFixtureServer } from "./fixture-server.js";
import { waitUntil } from "../../support/wait-until.js";

function contextFor(signal = new AbortController().signal): ToolContext {
  return { workspaceRoot: os.tmpdir(), scratchDir: os.tmpdir(), signal, runId: "mcp-failures" };
}

function call(
  tools: readonly Tool[],
  name: string,
  input: Record<string, unknown> = {},
  signal?: AbortSignal,
) {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.execute(input, contextFor(signal));
}

const pidOf = (output: string): number => Number(/pid (\d+)/.exec(output)?.[1]);
const fast = { reconnect: { baseDelayMs: 20, maxDelayMs: 50 }, closeGraceMs: 200 };

describe("MCP servers that fail", () => {
  let directory: string;
  let fixture: string;
  const managers: McpManager[] = [];
  const track = (manager: McpManager): McpManager => (managers.push(manager), manager);

  beforeAll(async () => {
    directory = await mkdtemp(path.join(os.tmpdir(), "agentforge-mcp-fail-"));
    fixture = await writeFixtureServer(directory);
  });

  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()));
    await rm(directory, { recursive: true, force: true });
  });

  it("skips a server that never answers (startup timeout) and one whose command does not exist, and kills the hung process", async () => {
    const logs: string[] = [];
    const manager = track(
      createMcpManager(
        {
          sleeper: { command: "sleep", args: ["1000"], startup_timeout_ms: 400 },
          missing: { command: path.join(directory, "no-such-server"), startup_timeout_ms: 2_000 },
          good: { command: process.execPath, args: [fixture] },
        },
        { ...fast, log: (message) => logs.push(message) },
      ),
    );
    const startedAt = Date.now();
    const { tools, problems } = await manager.start();
    const elapsed = Date.now() - startedAt;
    expect(problems.map((problem) => problem.server)).toEqual(["missing", "sleeper"]);
    expect(problems[0]!.message).toMatch(/command not found/);
    expect(problems[1]!.message).toMatch(/did not start within 400 ms/);
    expect(elapsed).toBeLessThan(3_000);
    expect(tools.map((tool) => tool.name)).toContain("good__echo");
    expect(tools.some((tool) => tool.name.startsWith("sleeper__"))).toBe(false);
    // No `sleep 1000` left behind by the timed-out start.
    expect(
      listDescendantPids(process.pid).filter(
        (pid) => isProcessAlive(pid) && readCommand(pid).startsWith("sleep"),
      ),
    ).toEqual([]);
    expect((await call(tools, "good__echo", { text: "still works" })).output).toBe("still works");
    expect(logs.some((line) => line.includes("sleeper skipped"))).toBe(true);
  });

  it("reports a crash in the middle of a call, then restarts the server on the next call", async () => {
    const manager = track(createMcpManager({ flaky: { command: process.execPath, args: [fixture] } }, fast));
    const { tools } = await manager.start();
    const firstPid = pidOf((await call(tools, "flaky__whoami")).output);
    expect(isProcessAlive(firstPid)).toBe(true);

    const crashed = await call(tools, "flaky__crash");
    expect(crashed).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR", recoverable: true } });
    expect(crashed.error?.message).toMatch(/closed the connection during the call/);
    await waitUntil(() => !isProcessAlive(firstPid), "the crashed server to be gone", { timeoutMs: 2_000 });

    const again = await call(tools, "flaky__whoami");
    expect(again.ok).toBe(true);
    const secondPid = pidOf(again.output);
    expect(secondPid).not.toBe(firstPid);
    expect(manager.status()[0]).toMatchObject({ state: "connected", restarts: 1, pid: secondPid });
  });

  it("gives up after bounded restart attempts with backoff, and says so on every later call", async () => {
    const refuse = path.join(directory, "refuse-now");
    const manager = track(
      createMcpManager(
        {
          doomed: {
            command: process.execPath,
            args: [fixture],
            env: { FIXTURE_REFUSE_START_IF_EXISTS: refuse },
          },
        },
        { reconnect: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000 }, closeGraceMs: 200 },
      ),
    );
    const { tools } = await manager.start();
    await writeFile(refuse, "", "utf8");
    await call(tools, "doomed__crash");

    const startedAt = Date.now();
    const down = await call(tools, "doomed__whoami");
    const elapsed = Date.now() - startedAt;
    expect(down).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR", recoverable: false } });
    expect(down.error?.message).toMatch(/is down: 3 restart attempts failed .*refuses to start/);
    // Backoff 100 ms then 200 ms between the three attempts.
    expect(elapsed).toBeGreaterThanOrEqual(300);
    expect(manager.status()[0]!.state).toBe("dead");

    const later = Date.now();
    const stillDown = await call(tools, "doomed__whoami");
    expect(stillDown.error?.message).toMatch(/is down/);
    expect(Date.now() - later).toBeLessThan(100);
  });

  it("stops restarting a server that crashes on every call once its restart budget is spent", async () => {
    const manager = track(
      createMcpManager(
        { crashy: { command: process.execPath, args: [fixture] } },
        { ...fast, reconnect: { ...fast.reconnect, maxRestarts: 2 } },
      ),
    );
    const { tools } = await manager.start();
    const outcomes: string[] = [];
    for (let index = 0; index < 4; index += 1)
      outcomes.push((await call(tools, "crashy__crash")).error?.message ?? "ok");
    expect(outcomes.slice(0, 3).every((message) => /closed the connection/.test(message))).toBe(true);
    expect(outcomes[3]).toMatch(/restarted 2 times already/);
  });

  it("cancels a hanging call through its signal or the call timeout, and the server keeps serving", async () => {
    const manager = track(
      createMcpManager(
        { slow: { command: process.execPath, args: [fixture] } },
        { ...fast, callTimeoutMs: 600 },
      ),
    );
    const { tools } = await manager.start();
    const controller = new AbortController();
    // The abort mid-call is the work under test: the call has been sent and hangs by then.
    setTimeout(() => controller.abort(new Error("tool timeout")), 150);
    const startedAt = Date.now();
    const cancelled = await call(tools, "slow__hang", {}, controller.signal);
    expect(Date.now() - startedAt).toBeLessThan(550);
    expect(cancelled).toMatchObject({ ok: false, status: "cancelled", error: { error_type: "CANCELLED" } });

    const timedOut = await call(tools, "slow__hang");
    expect(timedOut).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR" } });
    expect(timedOut.error?.message).toMatch(/timed out/i);

    expect((await call(tools, "slow__echo", { text: "after" })).output).toBe("after");
    const failed = await call(tools, "slow__fail");
    expect(failed).toMatchObject({ ok: false, status: "error", error: { error_type: "MCP_ERROR" } });
    expect(failed.error?.message).toBe("slow says: the fixture failed on purpose");
    const picture = await call(tools, "slow__picture");
    expect(picture.output).toBe("[image image/png, 11 bytes, not shown]\na picture");
  });

  it("kills a hung server's whole process tree on close, also when started through a shell wrapper", async () => {
    const manager = track(
      createMcpManager(
        { wrapped: { command: "sh", args: ["-c", `"${process.execPath}" "${fixture}"; echo done`] } },
        fast,
      ),
    );
    const { tools } = await manager.start();
    const wrapperPid = manager.status()[0]!.pid!;
    const serverPid = pidOf((await call(tools, "wrapped__whoami")).output);
    expect(serverPid).not.toBe(wrapperPid);
    expect(isProcessAlive(serverPid)).toBe(true);
    await manager.close();
    await waitUntil(
      () => !isProcessAlive(serverPid) && !isProcessAlive(wrapperPid),
      "the server and its wrapper to exit",
      { timeoutMs: 3_000 },
    );
  });
});

function readCommand(pid: number): string {
  const file = `/proc/${pid}/cmdline`;
  return existsSync(file) ? readFileSync(file, "utf8").replace(/\0/g, " ") : "";
}
