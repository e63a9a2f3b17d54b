import { hasGitSegment } from "../../paths/index.js";
import { stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { errorResult, okResult, type ToolResult } from "../tool-result.js";
import {
  fileNotFoundError,
  gitDirectorySkippedError,
  patternLeavesSearch,
  patternOutsideError,
} from "./file-errors.js";
import { isMissingError, resolveWorkspacePath, toPosix } from "./resolve-workspace-path.js";
import { searchFiles, type FileMatches, type LineMatcher, type SearchTarget } from "./search-files.js";
import { walkWorkspace } from "./walk-workspace.js";

const DEFAULT_MAX_RESULTS = 200;
const MAX_RESULTS = 1000;
const MAX_CONTEXT = 10;
const MAX_SHOWN_LINE_CHARS = 300;

const grepInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      "Regular expression (RE2 syntax: no lookarounds or backreferences), matched against each line (e.g. `function \\w+\\(`).",
    ),
  path: z
    .string()
    .nullish()
    .describe("File or directory to search, relative to the workspace root. Default: the root."),
  glob: z
    .string()
    .nullish()
    .describe("Only search files matching this glob, e.g. `*.ts` (any depth) or `src/**/*.test.ts`."),
  case_insensitive: z.boolean().nullish().describe("Ignore case. Default false."),
  context: z
    .number()
    .int()
    .min(0)
    .nullish()
    .describe(`Lines of context before and after each match. Default 0, maximum ${MAX_CONTEXT}.`),
  max_results: z
    .number()
    .int()
    .min(1)
    .nullish()
    .describe(`Most matching lines to return. Default ${DEFAULT_MAX_RESULTS}, maximum ${MAX_RESULTS}.`),
});

export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a regular expression (RE2 syntax, linear time), line by line. Output lines are `path:line:text` " +
    "(context lines `path-line-text`), sorted by path and line. Skips .gitignored files, .git, node_modules (unless path or glob names it), " +
    "binary files and files over 2 MB. Use it to find definitions and usages before reading files.",
  kind: "read",
  inputSchema: grepInput,
  async execute(input, context) {
    const compiled = compilePattern(input.pattern, input.case_insensitive === true);
    if (!compiled.success) return compiled.error;
    const resolved = resolveWorkspacePath(context.workspaceRoot, input.path ?? ".", {
      forWrite: false,
    });
    if (!resolved.success) return resolved.error;
    const base = resolved.value;
    if (hasGitSegment(base.relative)) return gitDirectorySkippedError("grep", base.relative);
    if (input.glob !== undefined && input.glob !== null && patternLeavesSearch(input.glob)) {
      return patternOutsideError("glob", input.glob, "grep with glob **/*.ts");
    }
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(base.absolute)).isDirectory();
    } catch (error) {
      if (isMissingError(error)) return fileNotFoundError(context.workspaceRoot, base.relative);
      throw error;
    }

    const startedAt = performance.now();
    const maxResults = Math.min(input.max_results ?? DEFAULT_MAX_RESULTS, MAX_RESULTS);
    const contextLines = Math.min(input.context ?? 0, MAX_CONTEXT);
    const targets: SearchTarget[] = [];
    if (isDirectory) {
      const glob = input.glob ?? undefined;
      const matchesGlob =
        glob === undefined ? () => true : picomatch(glob, { dot: true, basename: !glob.includes("/") });
      const walk = walkWorkspace({
        root: context.workspaceRoot,
        start: base.absolute,
        includeNodeModules: `${base.relative}/${glob ?? ""}`.includes("node_modules"),
        signal: context.signal,
      });
      for await (const entry of walk) {
        // Symlinks are not followed: their target, when inside the workspace, is searched where it lives.
        if (entry.type !== "file") continue;
        if (matchesGlob(toPosix(path.relative(base.absolute, entry.absolute)))) targets.push(entry);
      }
    } else {
      targets.push(base);
    }
    const summary = await searchFiles(targets, {
      regex: compiled.value.regex,
      prefilter: compiled.value.prefilter,
      ...(isPlainLiteral(input.pattern) && input.case_insensitive !== true
        ? { literal: Buffer.from(input.pattern, "utf8") }
        : {}),
      maxMatchesPerFile: maxResults,
      contextLines,
      signal: context.signal,
    });
    summary.files.sort((left, right) => (left.relative < right.relative ? -1 : 1));
    const rendered = renderMatches(summary.files, contextLines, maxResults);
    const totalMatches = summary.files.reduce((sum, file) => sum + file.matchCount, 0);
    const durationMs = Math.round(performance.now() - startedAt);

    const notes: string[] = [];
    if (rendered.truncated)
      notes.push(
        `[showing ${rendered.shown} of ${totalMatches} matching lines: narrow the pattern, path or glob]`,
      );
    if (summary.skippedLarge > 0) notes.push(`[${summary.skippedLarge} files over 2 MB not searched]`);
    const output =
      totalMatches === 0
        ? `No matches for /${input.pattern}/ in ${summary.filesSearched} files`
        : [...rendered.lines, ...notes].join("\n");
    return okResult(output, {
      summary: `grep /${input.pattern}/: ${totalMatches} matching lines in ${summary.files.length} files`,
      metadata: {
        kind: "grep",
        pattern: input.pattern,
        path: base.relative,
        matches: totalMatches,
        filesMatched: summary.files.length,
        filesSearched: summary.filesSearched,
        skippedLarge: summary.skippedLarge,
        skippedBinary: summary.skippedBinary,
        truncated: rendered.truncated,
        durationMs,
      },
    });
  },
});

type CompiledPattern =
  | { success: true; value: { regex: LineMatcher; prefilter: LineMatcher } }
  | { success: false; error: ToolResult };

/**
 * Patterns run on RE2, whose matching time is linear in the text whatever the pattern: a model's
 * regex (or one a repository's text talked it into) cannot stall the process, however long the
 * line. RE2 has no lookarounds or backreferences; such a pattern is refused by name.
 */
function compilePattern(pattern: string, caseInsensitive: boolean): CompiledPattern {
  const flags = caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0;
  let regex: RE2JS;
  let prefilter: RE2JS;
  try {
    regex = RE2JS.compile(pattern, flags);
    // With MULTILINE a whole file matches whenever one of its lines does, so files without a
    // match are dropped in one scan (a false "yes" only costs the line-by-line pass).
    prefilter = RE2JS.compile(pattern, flags | RE2JS.MULTILINE);
  } catch (error) {
    return {
      success: false,
      error: errorResult("INVALID_ARGUMENTS", {
        message: `invalid regular expression: ${error instanceof Error ? error.message : String(error)}`,
        recovery_hint:
          "Use RE2 syntax (no lookarounds such as (?=…) or (?<=…), no backreferences such as \\1); escape literal characters such as ( ) [ ] { } . * + ? with a backslash.",
        next_actions: ["grep <fixed pattern>"],
      }),
    };
  }
  return { success: true, value: { regex, prefilter } };
}

function renderMatches(
  files: readonly FileMatches[],
  contextLines: number,
  maxResults: number,
): { lines: string[]; shown: number; truncated: boolean } {
  const lines: string[] = [];
  let shown = 0;
  let truncated = false;
  for (const file of files) {
    if (shown >= maxResults) {
      truncated = true;
      break;
    }
    if (contextLines > 0 && lines.length > 0) lines.push("--");
    let previous = 0;
    let shownInFile = 0;
    for (const line of file.shown) {
      if (line.isMatch) {
        if (shown >= maxResults) break;
        shown += 1;
        shownInFile += 1;
      }
      if (contextLines > 0 && previous > 0 && line.lineNumber > previous + 1) lines.push("--");
      const separator = line.isMatch ? ":" : "-";
      lines.push(`${file.relative}${separator}${line.lineNumber}${separator}${clip(line.text)}`);
      previous = line.lineNumber;
    }
    if (shownInFile < file.matchCount) truncated = true;
  }
  return { lines, shown, truncated };
}

/** No regex syntax at all, so a byte search finds exactly the files a regex search would. */
function isPlainLiteral(pattern: string): boolean {
  return !/[\\^$.|?*+()[\]{}]/.test(pattern);
}

function clip(line: string): string {
  return line.length <= MAX_SHOWN_LINE_CHARS ? line : `${line.slice(0, MAX_SHOWN_LINE_CHARS)}…`;
}
