import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPolicyApprovalGate } from "../../../../src/core/policy/create-policy-approval-gate.js";
import { createSession } from "../../../../src/core/session/create-session.js";
import { createShellTool } from "../../../../src/core/tools/shell/create-shell-tool.js";
import type { CommandRunner, ToolContext } from "../../../../src/core/tools/tool.js";
import { plainSafety } from "../../../support/plain-safety.js";

/*
 * The folder a command runs in decides what it means (relative paths, where git looks for a
 * repository), so the shell tool's `workdir` must reach the policy, not only the sandbox.
 */
describe("the shell tool's workdir reaches the approval policy", () => {
  let workspace: string;
  const ran: { command: string; cwd: string }[] = [];
  const runner: CommandRunner = {
    run: async (command, options) => {
      ran.push({ command, cwd: options.cwd });
      return {
        exitCode: 0,
        signal: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        outputTruncated: false,
        durationMs: 1,
      };
    },
  };
  beforeEach(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), "agentforge-workdir-")));
    await mkdir(path.join(workspace, "vendor", "evil"), { recursive: true });
    ran.length = 0;
  });
  afterEach(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const invoke = async (command: string, workdir?: string) => {
    const session = createSession({
      workspaceRoot: workspace,
      mode: "build",
      approvalMode: "never",
      allowPrefixes: [],
      tools: [createShellTool()],
      budgets: { maxTurns: 3 },
      safety: plainSafety,
      createApprovalGate: (gate) => createPolicyApprovalGate({ ...gate, workspaceRoot: workspace }),
      fencingInstructions: "",
    });
    const context: ToolContext = {
      workspaceRoot: workspace,
      scratchDir: workspace,
      signal: new AbortController().signal,
      runId: "workdir",
      commandRunner: runner,
    };
    return session.registry.invoke(
      {
        id: "call_1",
        type: "function",
        function: { name: "shell", arguments: JSON.stringify({ command, ...(workdir ? { workdir } : {}) }) },
      },
      context,
    );
  };

  it("runs a read-only git command at the workspace root", async () => {
    const invocation = await invoke("git status");
    expect(invocation.refused).toBe(false);
    expect(ran).toHaveLength(1);
  });

  it("refuses the same command where a committed folder could be taken for a repository", async () => {
    const invocation = await invoke("git status", "vendor/evil");
    expect(invocation.refused).toBe(true);
    expect(ran).toEqual([]);
  });
});
