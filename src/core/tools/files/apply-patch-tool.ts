import { lstatSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
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
import { isReadOnlyMode, readOnlyFileError } from "./file-errors.js";
import { isMissingError, resolveWorkspacePath, type WorkspacePath } from "./resolve-workspace-path.js";
import { runGitApply } from "./run-git-apply.js";
import { snapshotFiles, type FilesSnapshot } from "./snapshot-files.js";
import { writeCrlfAttributes } from "./write-crlf-attributes.js";

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
    "no file changes. Context lines must match the current files exactly, so read them first; hunk line counts are recomputed, " +
    "and files with CRLF line endings keep them (write the patch with plain LF lines). " +
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
    const attempt = async (config: readonly string[]): Promise<ToolResult | undefined> => {
      // Exact hunk counts first. --recount (which forgives the wrong counts models often write)
      // only as a second try: in a plain multi-file patch it would read the next `--- ` header as
      // a removed line. Either way git checks every hunk of every file before writing any.
      for (const countOptions of [[], ["--recount"]]) {
        const options = [strip, ...countOptions];
        const run = (args: readonly string[]) =>
          runGitApply(root, context.scratchDir, args, patch, context.signal, config);
        const numstat = await run(["--numstat", "-z", ...options]);
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
        const summary = await run(["--summary", ...options]);
        const linkByGit = summary.exitCode === 0 ? findLinkModeInSummary(summary.stdout) : undefined;
        if (linkByGit !== undefined) return linkRefused(linkByGit);
        const applyOptions = [...options, "--whitespace=nowarn"];
        const check = await run(["--check", ...applyOptions]);
        if (check.exitCode !== 0) {
          failures.push(check.stderr.trim());
          continue;
        }
        const before = snapshotFiles(root, [...parsedPaths, ...gitPaths]);
        const applied = await run(applyOptions);
        if (applied.exitCode !== 0)
          return restoreAfterFailedWrite(before, applied.stderr.trim(), parsedPaths);
        return appliedResult(stats, [...parsedPaths, ...gitPaths], collectRenames(patch));
      }
      return undefined;
    };
    const result = await attempt([]);
    if (result !== undefined) return result;
    // A model writes LF patches; a CRLF file's context lines then match nowhere. Once more, with
    // those files read as LF and written back as CRLF.
    const attributes = await writeCrlfAttributes(root, context.scratchDir, patch, parsedPaths);
    if (attributes !== undefined) {
      try {
        const retried = await attempt([`core.attributesFile=${attributes}`]);
        if (retried !== undefined) return retried;
      } finally {
        await rm(attributes, { force: true });
      }
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
    const linked = isSymbolicLink(path.join(root, item));
    const resolved = resolveWorkspacePath(root, item, { forWrite: true });
    const error = linked
      ? linkRefused("symlink")
      : resolved.success
        ? readOnlyTarget(resolved.value)
        : resolved.error;
    if (error !== undefined) {
      return { ...error, output: `The patch was not applied: it touches "${item}". No file was changed.` };
    }
  }
  return undefined;
}

/**
 * git patches a symlink as a text holding its target: a hunk without any mode line retargets it,
 * and a rename or copy of one makes a new link whose relative target may now lead out. A patch
 * whose path is a symlink (on either side) is refused; links inside a path are resolved as usual.
 */
function isSymbolicLink(absolute: string): boolean {
  try {
    return lstatSync(absolute).isSymbolicLink();
  } catch (error) {
    if (isMissingError(error)) return false;
    throw error;
  }
}

/** An existing regular file nobody may write: refused as write_file and edit_file refuse it. */
function readOnlyTarget(target: WorkspacePath): ToolResult | undefined {
  try {
    const stats = statSync(target.absolute);
    return stats.isFile() && isReadOnlyMode(stats.mode)
      ? readOnlyFileError(target.relative, stats.mode)
      : undefined;
  } catch (error) {
    if (isMissingError(error)) return undefined;
    throw error;
  }
}

/** git checked every hunk, then failed while writing: what it wrote is put back. */
function restoreAfterFailedWrite(
  before: FilesSnapshot,
  gitMessage: string,
  paths: readonly string[],
): ToolResult {
  try {
    before.restore();
  } catch (error) {
    return errorResult("PATCH_FAILED", {
      message: `git stopped while writing the patch (${gitMessage}) and the files could not all be put back (${error instanceof Error ? error.message : String(error)}): some may be changed`,
      recovery_hint: "Read the files the patch names to see their state before doing anything else.",
      next_actions: paths.slice(0, 3).map((item) => `read_file ${item}`),
      recoverable: false,
    });
  }
  return patchFailed([gitMessage], paths);
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
