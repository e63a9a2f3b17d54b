import { hasGitSegment } from "../../paths/index.js";
import { lstat, readlink, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { okResult } from "../tool-result.js";
import {
  fileNotFoundError,
  formatBytes,
  gitDirectorySkippedError,
  notADirectoryError,
} from "./file-errors.js";
import { isMissingError, resolveWorkspacePath } from "./resolve-workspace-path.js";
import { walkWorkspace, type WalkStats } from "./walk-workspace.js";

const MAX_DEPTH = 3;
const MAX_ENTRIES = 500;

const listDirInput = z.object({
  path: z
    .string()
    .nullish()
    .describe("Directory to list, relative to the workspace root. Default: the root."),
  depth: z
    .number()
    .int()
    .min(1)
    .nullish()
    .describe(`How many levels to descend: 1 lists direct children only. Default 1, maximum ${MAX_DEPTH}.`),
});

export const listDirTool = defineTool({
  name: "list_dir",
  description:
    "List a workspace directory as an indented tree, sorted by name; directories end with `/`, files show their size. " +
    "Files ignored by .gitignore, .git and node_modules are left out. Use it to find your way around; use glob to find files by pattern.",
  kind: "read",
  inputSchema: listDirInput,
  async execute(input, context) {
    const requested = input.path ?? ".";
    const resolved = resolveWorkspacePath(context.workspaceRoot, requested, { forWrite: false });
    if (!resolved.success) return resolved.error;
    const target = resolved.value;
    if (hasGitSegment(target.relative)) return gitDirectorySkippedError("list_dir", target.relative);
    try {
      if (!(await stat(target.absolute)).isDirectory()) return notADirectoryError(target.relative);
    } catch (error) {
      if (isMissingError(error)) return fileNotFoundError(context.workspaceRoot, target.relative);
      throw error;
    }

    const depth = Math.min(input.depth ?? 1, MAX_DEPTH);
    const stats: WalkStats = { ignored: 0, unreadable: 0 };
    const lines: string[] = [];
    let truncated = false;
    const walk = walkWorkspace({
      root: context.workspaceRoot,
      start: target.absolute,
      maxDepth: depth,
      // Listing node_modules itself (or inside it) is an explicit request.
      includeNodeModules: target.relative.split("/").includes("node_modules"),
      signal: context.signal,
      stats,
    });
    for await (const entry of walk) {
      if (lines.length >= MAX_ENTRIES) {
        truncated = true;
        break;
      }
      const indent = "  ".repeat(entry.depth - 1);
      const name = entry.relative.slice(entry.relative.lastIndexOf("/") + 1);
      lines.push(`${indent}${await describeEntry(name, entry.absolute, entry.type)}`);
    }

    const header = `${target.relative === "." ? "./" : `${target.relative}/`}`;
    const notes: string[] = [];
    if (lines.length === 0) notes.push("(empty)");
    if (truncated)
      notes.push(`[stopped after ${MAX_ENTRIES} entries: list a subdirectory or use glob to narrow]`);
    if (stats.ignored > 0) notes.push(`[${stats.ignored} entries hidden by .gitignore]`);
    return okResult([header, ...lines, ...notes].join("\n"), {
      summary: `listed ${target.relative} (${lines.length} entries${truncated ? ", truncated" : ""})`,
      metadata: {
        path: target.relative,
        kind: "dir-list",
        entries: lines.length,
        truncated,
        ignored: stats.ignored,
      },
    });
  },
});

async function describeEntry(name: string, absolute: string, type: string): Promise<string> {
  switch (type) {
    case "directory":
      return `${name}/`;
    case "file":
      return `${name}  (${formatBytes((await lstat(absolute)).size)})`;
    case "symlink":
      return `${name} -> ${await readlink(absolute)}`;
    default:
      return name;
  }
}
