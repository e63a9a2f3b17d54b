import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { createAfterToolHooks } from "../../../src/core/session/create-after-tool-hooks.js";
import { createToolRegistry } from "../../../src/core/tools/create-tool-registry.js";
import { defineTool, type CommandRunner, type ToolContext } from "../../../src/core/tools/tool.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import { allowAll, plainSafety } from "../../support/plain-safety.js";

const edit = defineTool({
  name: "edit_file",
  description: "",
  kind: "write",
  inputSchema: z.object({}),
  execute: async () => okResult("edited", { summary: "edited" }),
});
const read = defineTool({
  name: "read_file",
  description: "",
  kind: "read",
  inputSchema: z.object({}),
  execute: async () => okResult("read", { summary: "read" }),
});
const context: ToolContext = {
  workspaceRoot: "/ws",
  scratchDir: "/tmp",
  signal: new AbortController().signal,
  runId: "r",
};
const call = (name: string) => ({ id: "c", type: "function" as const, function: { name, arguments: "{}" } });

function recordingRunner(exitCode: number): CommandRunner & { commands: string[] } {
  const commands: string[] = [];
  return {
    commands,
    run: async (command) => {
      commands.push(command);
      return {
        exitCode,
        signal: null,
        stdout: "",
        stderr: exitCode === 0 ? "" : "prettier: syntax error",
        timedOut: false,
        outputTruncated: false,
        durationMs: 1,
      };
    },
  };
}

describe("operator after-tool hooks", () => {
  it("run after the named tool succeeds, in the workspace, and report to the model", async () => {
    const runner = recordingRunner(0);
    const registry = createToolRegistry({
      tools: [edit, read],
      approvalGate: allowAll,
      safety: plainSafety,
      isAllowed: () => true,
      afterToolHooks: createAfterToolHooks(
        [{ tools: ["edit_file"], command: "npx prettier --write ." }],
        runner,
        1000,
      ),
    });
    const edited = await registry.invoke(call("edit_file"), context);
    await registry.invoke(call("read_file"), context);
    expect(runner.commands).toEqual(["npx prettier --write ."]);
    expect(edited.result.output).toContain("after-tool hook `npx prettier --write .` passed");
  });

  it("say when the hook fails, without turning the tool's success into a failure", async () => {
    const registry = createToolRegistry({
      tools: [edit],
      approvalGate: allowAll,
      safety: plainSafety,
      isAllowed: () => true,
      afterToolHooks: createAfterToolHooks(
        [{ tools: ["edit_file"], command: "npx prettier --check ." }],
        recordingRunner(2),
        1000,
      ),
    });
    const edited = await registry.invoke(call("edit_file"), context);
    expect(edited.result.ok).toBe(true);
    expect(edited.result.output).toContain("failed (exit 2): prettier: syntax error");
  });

  it("are not offered without a sandbox runner", () => {
    expect(createAfterToolHooks([{ tools: ["edit_file"], command: "x" }], undefined, 1000)).toEqual([]);
  });
});
