import { afterEach, beforeEach, expect, it } from "@jest/globals";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { createSandboxRunner } from "../../../../src/core/sandbox/create-sandbox-runner.js";
import type { CommandRunner, ToolContext } from "../../../../src/core/tools/tool.js";
import { createShellTool } from "../../../../src/core/tools/shell/create-shell-tool.js";
import { describeWithBwrap, makeTempDirectory, removeDirectory } from "../../sandbox/sandbox-test-helpers.js";

describeWithBwrap("the shell tool", () => {
  let workspace: string;
  let context: ToolContext;
  const tool = createShellTool({ maxTimeoutMs: 2000 });
  const call = (input: unknown, overrides: Partial<ToolContext> = {}) =>
    tool.execute(tool.inputSchema.parse(input), { ...context, ...overrides });

  beforeEach(async () => {
    workspace = await makeTempDirectory("agentforge-shell-");
    context = {
      workspaceRoot: workspace,
      scratchDir: workspace,
      signal: new AbortController().signal,
      runId: "test-run",
      commandRunner: createSandboxRunner({ mode: "bwrap" }),
    };
  });
  afterEach(async () => {
    await removeDirectory(workspace);
  });

  it("is an exec tool that tells the approval gate the command and does no policy itself", () => {
    expect(tool.name).toBe("shell");
    expect(tool.kind).toBe("exec");
    expect(tool.describeAction?.(tool.inputSchema.parse({ command: "rm -rf /" }), context)).toEqual({
      command: "rm -rf /",
    });
    expect(tool.timeoutMs).toBeGreaterThan(2000);
  });

  it("succeeds on exit 0 and shows exit code, stdout and stderr", async () => {
    const result = await call({ command: "echo out; echo err >&2" });
    expect(result.ok).toBe(true);
    expect(result.output).toBe("exit code: 0\nstdout:\nout\nstderr:\nerr");
    expect(result.metadata).toMatchObject({
      command: "echo out; echo err >&2",
      exitCode: 0,
      timedOut: false,
    });
    expect(typeof result.metadata?.["durationMs"]).toBe("number");
  });

  it("reports a non-zero exit as COMMAND_FAILED, recoverable, pointing at stderr", async () => {
    const result = await call({ command: "echo broken >&2; exit 3" });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ error_type: "COMMAND_FAILED", recoverable: true });
    expect(result.output).toContain("exit code: 3");
    expect(result.output).toContain("broken");
    expect(result.recovery_hint).toMatch(/stderr/);
    expect(result.metadata?.["exitCode"]).toBe(3);
  });

  it("reports COMMAND_TIMEOUT and caps the requested timeout", async () => {
    const started = Date.now();
    const result = await call({ command: "echo begun; sleep 30", timeout_ms: 600_000 });
    expect(Date.now() - started).toBeLessThan(6000);
    expect(result.status).toBe("timeout");
    expect(result.error?.error_type).toBe("COMMAND_TIMEOUT");
    expect(result.output).toContain("begun");
    expect(result.metadata?.["timedOut"]).toBe(true);
  });

  it("runs in a workdir inside the workspace and refuses one outside it", async () => {
    await mkdir(path.join(workspace, "sub"));
    const inside = await call({ command: "pwd; touch made-here", workdir: "sub" });
    expect(inside.output).toContain(path.join(workspace, "sub"));
    const outside = await call({ command: "pwd", workdir: "../.." });
    expect(outside.error?.error_type).toBe("OUTSIDE_WORKSPACE");
    const missing = await call({ command: "pwd", workdir: "nope" });
    expect(missing.error?.error_type).toBe("FILE_NOT_FOUND");
  });

  it("the workspace root stays writable when running in a subfolder", async () => {
    await mkdir(path.join(workspace, "sub"));
    const result = await call({ command: "echo x > ../at-root && cat ../at-root", workdir: "sub" });
    expect(result.ok).toBe(true);
  });

  it("returns SANDBOX_UNAVAILABLE when the sandbox cannot run", async () => {
    const result = await call(
      { command: "echo hi" },
      { commandRunner: createSandboxRunner({ mode: "bwrap", bwrapPath: "/nonexistent/bwrap" }) },
    );
    expect(result.error).toMatchObject({ error_type: "SANDBOX_UNAVAILABLE", recoverable: false });
    expect(result.recovery_hint).toMatch(/bubblewrap/);
  });

  it("returns SANDBOX_UNAVAILABLE when the session has no runner", async () => {
    const { commandRunner: _unused, ...withoutRunner } = context;
    const result = await tool.execute(tool.inputSchema.parse({ command: "echo hi" }), withoutRunner);
    expect(result.error?.error_type).toBe("SANDBOX_UNAVAILABLE");
  });

  it("reports CANCELLED, and runs nothing, when the run was cancelled before the command started", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await call({ command: "touch started-anyway; sleep 30" }, { signal: controller.signal });
    expect(result.status).toBe("cancelled");
    await expect(stat(path.join(workspace, "started-anyway"))).rejects.toThrow();
  });

  it("reports CANCELLED when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await call({ command: "sleep 30" }, { signal: controller.signal });
    expect(result.status).toBe("cancelled");
  });

  it("passes the runner's outcome through without cutting it further", async () => {
    const big = "x".repeat(200_000);
    const runner: CommandRunner = {
      run: async () => ({
        exitCode: 0,
        signal: null,
        stdout: big,
        stderr: "",
        timedOut: false,
        outputTruncated: false,
        durationMs: 1,
      }),
    };
    const result = await call({ command: "anything" }, { commandRunner: runner });
    expect(result.output).toContain(big);
  });
});
