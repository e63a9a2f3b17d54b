import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "@jest/globals";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createSandboxRunner, type SandboxRunner } from "../../../src/core/sandbox/create-sandbox-runner.js";
import { createSession } from "../../../src/core/session/create-session.js";
import { createAfterToolHooks } from "../../../src/core/session/create-after-tool-hooks.js";
import { createShellTool } from "../../../src/core/tools/shell/create-shell-tool.js";
import type { ToolContext } from "../../../src/core/tools/tool.js";
import { describeWithBwrap, makeTempDirectory, removeDirectory } from "../sandbox/sandbox-test-helpers.js";
import { allowAll, plainSafety } from "../../support/plain-safety.js";

/*
 * Read-only sessions (plan mode, reviewers, subagents) are enforced by the kernel, not only by the
 * policy: their commands run with the workspace mounted read-only. To show that a judging mistake
 * costs nothing, these sessions get an approval gate that approves everything, then run commands
 * that write. Nothing is written; the same session in build mode writes.
 */
describeWithBwrap("read-only sessions run their commands on a read-only workspace", () => {
  let parent: string;
  let workspace: string;
  let runner: SandboxRunner;

  beforeAll(() => {
    runner = createSandboxRunner({ mode: "bwrap" });
  });
  afterAll(() => {
    runner.close();
  });
  beforeEach(async () => {
    parent = await makeTempDirectory("agentforge-read-only-");
    workspace = path.join(parent, "workspace");
    await mkdir(workspace);
    await writeFile(path.join(workspace, "kept.txt"), "kept\n");
  });
  afterEach(async () => {
    await removeDirectory(parent);
  });

  const session = (options: {
    readonly mode: "build" | "plan";
    readonly readOnly?: boolean;
    readonly hook?: string;
  }) =>
    createSession({
      workspaceRoot: workspace,
      mode: options.mode,
      approvalMode: "yolo",
      allowPrefixes: [],
      tools: [createShellTool()],
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      budgets: { maxTurns: 5 },
      safety: plainSafety,
      // A policy that got everything wrong: it approves any command at all.
      createApprovalGate: () => allowAll,
      fencingInstructions: "",
      ...(options.hook === undefined
        ? {}
        : {
            afterToolHooks: createAfterToolHooks(
              [{ tools: ["shell"], command: options.hook }],
              runner,
              10_000,
            ),
          }),
    });
  const context = (): ToolContext => ({
    workspaceRoot: workspace,
    scratchDir: parent,
    signal: new AbortController().signal,
    runId: "read-only-test",
    commandRunner: runner,
  });
  const shell = (command: string) => ({
    id: "call_1",
    type: "function" as const,
    function: { name: "shell", arguments: JSON.stringify({ command }) },
  });
  const WRITES =
    "echo x > written.txt; rm -f kept.txt; mkdir made; touch kept.txt; ln -s /etc link; echo done";

  it.each([
    ["plan mode", { mode: "plan" as const }],
    ["a read-only subagent or reviewer", { mode: "build" as const, readOnly: true }],
  ])("%s: an approved writing command changes nothing", async (_label, options) => {
    const invocation = await session(options).registry.invoke(shell(WRITES), context());
    expect(invocation.refused).toBe(false);
    expect(invocation.rendered).toMatch(/Read-only file system/);
    expect(readdirSync(workspace).sort()).toEqual(["kept.txt"]);
    // The read-only workspace still reads.
    const read = await session(options).registry.invoke(shell("cat kept.txt"), context());
    expect(read.rendered).toContain("kept");
  });

  it("an operator's after-tool hook in a read-only session runs read-only too", async () => {
    const invocation = await session({ mode: "plan", hook: "echo hooked > hook.txt" }).registry.invoke(
      shell("true"),
      context(),
    );
    expect(invocation.rendered).toContain("after-tool hook");
    expect(existsSync(path.join(workspace, "hook.txt"))).toBe(false);
  });

  it("build mode, for contrast, writes", async () => {
    await session({ mode: "build" }).registry.invoke(shell("echo x > written.txt"), context());
    expect(existsSync(path.join(workspace, "written.txt"))).toBe(true);
  });
});
