import path from "node:path";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { errorResult, okResult, type ToolResult } from "../tool-result.js";
import {
  collectPatchPaths,
  collectRenames,
  detectStripLevel,
  findLinkModeInSummary,
  findLinkOrSubmoduleMode,
  parseNumstat,
  type PatchFileStat,
} from "./collect-patch-paths.js";
import { resolveWorkspacePath } from "./resolve-workspace-path.js";
import { runGitApply } from "./run-git-apply.js";

const applyPatchInput = z.object({
  patch: z
    .string()
    .min(1)
    .describe(
      "A unified diff: git style (`diff --git a/x b/x`, `--- a/x`, `+++ b/x`) or plain (`--- x`, `+++ x`), with `@@` hunks and a few unchanged context lines. New files use `--- /dev/null`.",
    ),
});

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description:
    "Apply a unified diff to one or more files at once (edits, new files, deletions, renames). All or nothing: if any hunk does not apply, " +
    "no file changes. Context lines must match the current files exactly, so read them first; hunk line counts are recomputed. " +
    "For a single small change edit_file is simpler.",
  kind: "write",
  inputSchema: applyPatchInput,
  describeAction(input, context) {
    return { paths: collectPatchPaths(input.patch).map((item) => path.resolve(context.workspaceRoot, item)) };
  },
  async execute(input, context) {
    const root = context.workspaceRoot;
    const patch = input.patch.endsWith("\n") ? input.patch : `${input.patch}\n`;
    const parsedPaths = collectPatchPaths(patch);
    if (parsedPaths.length === 0) {
      return errorResult("INVALID_ARGUMENTS", {
        message: "no file changes found in the patch",
        recovery_hint:
          "Send a unified diff with `--- a/path` and `+++ b/path` headers followed by `@@` hunks.",
        next_actions: ["edit_file"],
      });
    }
    const linkMode = findLinkOrSubmoduleMode(patch);
    if (linkMode !== undefined) return linkRefused(linkMode);
    const denied = firstDeniedPath(root, parsedPaths);
    if (denied !== undefined) return denied;

    const strip = `-p${detectStripLevel(patch)}`;
    const failures: string[] = [];
    // Exact hunk counts first. --recount (which forgives the wrong counts models often write)
    // only as a second try: in a plain multi-file patch it would read the next `--- ` header as
    // a removed line. Either way git checks every hunk of every file before writing any.
    for (const countOptions of [[], ["--recount"]]) {
      const options = [strip, ...countOptions];
      const numstat = await runGitApply(root, ["--numstat", "-z", ...options], patch, context.signal);
      if (numstat.exitCode !== 0) {
        failures.push(numstat.stderr.trim());
        continue;
      }
      const stats = parseNumstat(numstat.stdout);
      // git's own reading of the patch is the one that gets applied, so its paths are checked too.
      const gitPaths = stats.flatMap((stat) =>
        stat.previousPath ? [stat.previousPath, stat.path] : [stat.path],
      );
      const deniedByGit = firstDeniedPath(root, gitPaths);
      if (deniedByGit !== undefined) return deniedByGit;
      // git's reading of the modes too: whatever the patch's spelling, no link is created.
      const summary = await runGitApply(root, ["--summary", ...options], patch, context.signal);
      const linkByGit = summary.exitCode === 0 ? findLinkModeInSummary(summary.stdout) : undefined;
      if (linkByGit !== undefined) return linkRefused(linkByGit);
      const applyOptions = [...options, "--whitespace=nowarn"];
      const check = await runGitApply(root, ["--check", ...applyOptions], patch, context.signal);
      if (check.exitCode !== 0) {
        failures.push(check.stderr.trim());
        continue;
      }
      const applied = await runGitApply(root, applyOptions, patch, context.signal);
      if (applied.exitCode !== 0) return patchFailed([applied.stderr.trim()], parsedPaths);
      return appliedResult(stats, [...parsedPaths, ...gitPaths], collectRenames(patch));
    }
    return patchFailed(failures, parsedPaths);
  },
});

function linkRefused(kind: "symlink" | "submodule"): ToolResult {
  return errorResult("PERMISSION_DENIED", {
    message: `the patch creates or changes a ${kind}, which patches may not do`,
    recovery_hint: "Change regular files only. Nothing was applied.",
    next_actions: ["apply_patch <patch without the symlink or submodule>"],
    recoverable: false,
  });
}

function appliedResult(
  stats: readonly PatchFileStat[],
  touched: readonly string[],
  renames: ReadonlyMap<string, string>,
): ToolResult {
  const files = stats.map((stat) => {
    const previousPath = stat.previousPath ?? renames.get(stat.path);
    return { ...stat, ...(previousPath !== undefined ? { previousPath } : {}) };
  });
  const artifacts = [...new Set(touched)].sort();
  return okResult(
    `Applied the patch to ${files.length} file${files.length === 1 ? "" : "s"}:\n${files.map(describeStat).join("\n")}`,
    {
      summary: `applied patch: ${files.length} files`,
      artifacts,
      next_actions: files.slice(0, 3).map((stat) => `read_file ${stat.path}`),
      metadata: { kind: "patch-apply", files },
    },
  );
}

function firstDeniedPath(root: string, paths: readonly string[]): ToolResult | undefined {
  for (const item of paths) {
    const resolved = resolveWorkspacePath(root, item, { forWrite: true });
    if (!resolved.success) {
      const error = resolved.error;
      return { ...error, output: `The patch was not applied: it touches "${item}". No file was changed.` };
    }
  }
  return undefined;
}

function patchFailed(gitMessages: readonly string[], paths: readonly string[]): ToolResult {
  const unique = [...new Set(gitMessages.flatMap((text) => text.split("\n")).filter((line) => line !== ""))];
  const message = unique.join("\n") || "git apply rejected the patch";
  return errorResult("PATCH_FAILED", {
    message: `the patch does not apply; no file was changed. git said: ${message}`,
    output: message,
    recovery_hint:
      "Re-read the files named above with read_file, then either fix the patch's context lines to match them exactly or make the change with edit_file.",
    next_actions: [...paths.slice(0, 3).map((item) => `read_file ${item}`), "edit_file"],
    metadata: { kind: "patch-apply", paths },
  });
}

function describeStat(stat: PatchFileStat): string {
  const counts = stat.added === undefined ? "binary" : `+${stat.added} -${stat.deleted ?? 0}`;
  return `  ${stat.previousPath ? `${stat.previousPath} -> ` : ""}${stat.path} (${counts})`;
}
