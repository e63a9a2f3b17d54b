import { createHash } from "node:crypto";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { errorResult, okResult } from "../tool-result.js";
import { detectLineEnding } from "./line-endings.js";
import { loadTextFile } from "./load-text-file.js";
import { resolveWorkspacePath } from "./resolve-workspace-path.js";

export const DEFAULT_READ_LINES = 2000;
const MAX_READ_LINES = 2000;
/** Longer lines are cut: minified files would otherwise fill the context with one line. */
const MAX_LINE_CHARS = 2000;
/** Output budget per call; the rest is reachable with offset. */
const MAX_OUTPUT_CHARS = 100_000;

const readFileInput = z.object({
  path: z.string().describe("File to read, relative to the workspace root (e.g. src/index.ts)."),
  offset: z
    .number()
    .int()
    .min(1)
    .nullish()
    .describe("1-based line number to start at. Default 1. Use it to page through long files."),
  limit: z
    .number()
    .int()
    .min(1)
    .nullish()
    .describe(`Number of lines to return. Default and maximum ${MAX_READ_LINES}.`),
});

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file of the workspace. Lines come back numbered (`  12\\tcode`; the number and tab are not part of the file). " +
    "Says how many lines the file has, whether more remain (continue with offset) and whether it ends with a newline. " +
    "Read a file before editing it, and copy old_string for edit_file from this output without the line numbers.",
  kind: "read",
  inputSchema: readFileInput,
  async execute(input, context) {
    const resolved = resolveWorkspacePath(context.workspaceRoot, input.path, { forWrite: false });
    if (!resolved.success) return resolved.error;
    const target = resolved.value;
    const loaded = await loadTextFile(context.workspaceRoot, target);
    if (!loaded.success) return loaded.error;

    const { text } = loaded.value;
    const endsWithNewline = text.endsWith("\n");
    const lines = text === "" ? [] : text.split("\n");
    if (endsWithNewline) lines.pop();
    const totalLines = lines.length;
    const lineEnding = detectLineEnding(text);
    const sha256 = createHash("sha256").update(text).digest("hex");
    const baseMetadata = {
      path: target.relative,
      totalLines,
      kind: "file-read",
      endsWithNewline,
      lineEnding,
      sha256,
    };

    if (totalLines === 0) {
      return okResult(`${target.relative} is empty (0 lines).`, {
        summary: `read ${target.relative}: empty`,
        metadata: { ...baseMetadata, startLine: 0, endLine: 0, truncated: false },
      });
    }
    const startLine = input.offset ?? 1;
    if (startLine > totalLines) {
      return errorResult("INVALID_ARGUMENTS", {
        message: `offset ${startLine} is past the end of ${target.relative}, which has ${totalLines} lines`,
        recovery_hint: `Use an offset between 1 and ${totalLines}.`,
        next_actions: [`read_file ${target.relative} offset=1`],
        metadata: baseMetadata,
      });
    }
    const limit = Math.min(input.limit ?? DEFAULT_READ_LINES, MAX_READ_LINES);
    const width = Math.max(6, String(totalLines).length);
    const shown: string[] = [];
    let usedChars = 0;
    let endLine = startLine - 1;
    for (
      let lineNumber = startLine;
      lineNumber < startLine + limit && lineNumber <= totalLines;
      lineNumber += 1
    ) {
      const rendered = `${String(lineNumber).padStart(width)}\t${clipLine(lines[lineNumber - 1] ?? "")}`;
      if (shown.length > 0 && usedChars + rendered.length > MAX_OUTPUT_CHARS) break;
      shown.push(rendered);
      usedChars += rendered.length + 1;
      endLine = lineNumber;
    }
    const truncated = endLine < totalLines;
    const notes = [
      ...(lineEnding === "crlf" ? ["CRLF line endings"] : []),
      ...(lineEnding === "mixed" ? ["mixed CRLF and LF line endings, all shown as LF"] : []),
      ...(loaded.value.isUtf8 ? [] : ["not UTF-8: undecodable bytes shown as �; edit_file refuses it"]),
    ];
    const header = `${target.relative}: lines ${startLine}-${endLine} of ${totalLines}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
    const footer: string[] = [];
    if (truncated) {
      footer.push(`[${totalLines - endLine} more lines: call read_file with offset=${endLine + 1}]`);
    } else if (!endsWithNewline) {
      footer.push("[no newline at end of file]");
    }
    return okResult([header, ...shown, ...footer].join("\n"), {
      summary: `read ${target.relative} lines ${startLine}-${endLine} of ${totalLines}`,
      next_actions: truncated ? [`read_file ${target.relative} offset=${endLine + 1}`] : [],
      metadata: { ...baseMetadata, startLine, endLine, truncated },
    });
  },
});

function clipLine(line: string): string {
  const withoutCarriageReturn = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (withoutCarriageReturn.length <= MAX_LINE_CHARS) return withoutCarriageReturn;
  return `${withoutCarriageReturn.slice(0, MAX_LINE_CHARS)}… [line cut: ${withoutCarriageReturn.length - MAX_LINE_CHARS} more characters]`;
}
