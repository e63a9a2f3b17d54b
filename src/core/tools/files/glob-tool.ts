import { hasGitSegment } from "../../paths/index.js";
import { stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { okResult } from "../tool-result.js";
import {
  fileNotFoundError,
  gitDirectorySkippedError,
  notADirectoryError,
  patternLeavesSearch,
  patternOutsideError,
} from "./file-errors.js";
import { isMissingError, resolveWorkspacePath, toPosix } from "./resolve-workspace-path.js";
import { walkWorkspace } from "./walk-workspace.js";

const MAX_RESULTS = 1000;

const globInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe("Glob relative to `path`, e.g. `src/**/*.ts`, `**/*.{js,jsx}`, `*.md` (top level only)."),
  path: z
    .string()
    .nullish()
    .describe("Directory to search from, relative to the workspace root. Default: the root."),
});

export const globTool = defineTool({
  name: "glob",
  description:
    "Find files by glob pattern; returns workspace-relative paths sorted by name (at most 1000). " +
    "`*` stays within one directory, `**` crosses directories, so use `**/name.ts` to search everywhere. " +
    "Skips .git, files ignored by .gitignore, and node_modules unless the pattern or path names node_modules.",
  kind: "read",
  inputSchema: globInput,
  async execute(input, context) {
    const pattern = input.pattern.replace(/^(\.\/)+/, "");
    if (patternLeavesSearch(pattern)) {
      return patternOutsideError("pattern", input.pattern, "glob **/*");
    }
    const resolved = resolveWorkspacePath(context.workspaceRoot, input.path ?? ".", {
      forWrite: false,
    });
    if (!resolved.success) return resolved.error;
    const searchDirectory = resolved.value;
    try {
      if (!(await stat(searchDirectory.absolute)).isDirectory())
        return notADirectoryError(searchDirectory.relative);
    } catch (error) {
      if (isMissingError(error)) return fileNotFoundError(context.workspaceRoot, searchDirectory.relative);
      throw error;
    }

    const scan = picomatch.scan(pattern);
    // Walk only below the pattern's literal prefix (`src` for `src/**/*.ts`).
    const literalBase = scan.isGlob ? scan.base : path.posix.dirname(pattern);
    const walkStart = resolveWorkspacePath(
      context.workspaceRoot,
      path.join(searchDirectory.absolute, literalBase),
      { forWrite: false },
    );
    if (!walkStart.success) return walkStart.error;
    if (hasGitSegment(walkStart.value.relative))
      return gitDirectorySkippedError("glob", walkStart.value.relative);
    const isMatch = picomatch(pattern, { dot: true });
    const matches: string[] = [];
    let truncated = false;
    if (await isDirectory(walkStart.value.absolute)) {
      const walk = walkWorkspace({
        root: context.workspaceRoot,
        start: walkStart.value.absolute,
        maxDepth: pattern.includes("**") ? Number.POSITIVE_INFINITY : remainingDepth(pattern, literalBase),
        includeNodeModules: `${searchDirectory.relative}/${pattern}`.includes("node_modules"),
        signal: context.signal,
      });
      for await (const entry of walk) {
        if (entry.type === "directory") continue;
        const fromSearch = toPosix(path.relative(searchDirectory.absolute, entry.absolute));
        if (!isMatch(fromSearch)) continue;
        if (matches.length >= MAX_RESULTS) {
          truncated = true;
          break;
        }
        matches.push(entry.relative);
      }
    }
    matches.sort();
    const notes = truncated ? [`[stopped at ${MAX_RESULTS} files: narrow the pattern or the path]`] : [];
    const output = matches.length === 0 ? `No files match ${pattern}` : [...matches, ...notes].join("\n");
    return okResult(output, {
      summary: `glob ${pattern}: ${matches.length}${truncated ? "+" : ""} files`,
      metadata: { kind: "glob", pattern, path: searchDirectory.relative, count: matches.length, truncated },
    });
  },
});

function remainingDepth(pattern: string, literalBase: string): number {
  const total = pattern.split("/").length;
  const consumed = literalBase === "" || literalBase === "." ? 0 : literalBase.split("/").length;
  return Math.max(1, total - consumed);
}

async function isDirectory(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isDirectory();
  } catch (error) {
    if (isMissingError(error)) return false;
    throw error;
  }
}
