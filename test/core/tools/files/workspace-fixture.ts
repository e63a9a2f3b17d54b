import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Tool, ToolContext } from "../../../../src/core/tools/tool.js";
import type { ToolResult } from "../../../../src/core/tools/tool-result.js";

export interface Workspace {
  readonly root: string;
  /** A sibling folder outside the workspace, for escape attempts. */
  readonly outside: string;
  readonly context: ToolContext;
  write(relative: string, content: string | Buffer): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createWorkspace(): Promise<Workspace> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-files-")));
  const root = path.join(base, "workspace");
  const outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  const context: ToolContext = {
    workspaceRoot: root,
    scratchDir: path.join(base, "scratch"),
    signal: new AbortController().signal,
    runId: "test-run",
  };
  return {
    root,
    outside,
    context,
    async write(relative, content) {
      const absolute = path.join(root, relative);
      await mkdir(path.dirname(absolute), { recursive: true });
      await writeFile(absolute, content);
      return absolute;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

export function initGitRepository(root: string): void {
  execFileSync("git", ["init", "-q", root]);
}

/** Validates the input the way the registry would, then runs the tool. */
export async function runTool(tool: Tool, input: unknown, context: ToolContext): Promise<ToolResult> {
  return tool.execute(tool.inputSchema.parse(input), context);
}
