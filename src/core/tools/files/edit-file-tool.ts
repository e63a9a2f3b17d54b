import path from "node:path";
import { z } from "zod";
import { defineTool } from "../tool.js";
import { errorResult, okResult, type ToolResult } from "../tool-result.js";
import { ensureParentDirectory } from "./ensure-parent-directory.js";
import { findSimilarLines } from "./find-similar-lines.js";
import { detectLineEnding, toCrlf, toLf } from "./line-endings.js";
import { loadTextFile } from "./load-text-file.js";
import { renderEditSnippet, type Replacement } from "./render-edit-snippet.js";
import { isReadOnlyMode, readOnlyFileError } from "./file-errors.js";
import { resolveWorkspacePath, type WorkspacePath } from "./resolve-workspace-path.js";
import { writeFileAtomically } from "./write-file-atomically.js";

const MAX_LISTED_OCCURRENCES = 20;

const editFileInput = z.object({
  path: z.string().describe("File to edit, relative to the workspace root."),
  old_string: z
    .string()
    .describe(
      "Exact text to replace, copied from read_file output without line numbers, including indentation. Include enough surrounding lines to make it unique. Empty only to create a new file.",
    ),
  new_string: z.string().describe("Text to put in its place (same indentation style as the file)."),
  replace_all: z
    .boolean()
    .nullish()
    .describe("Replace every occurrence instead of requiring exactly one. Default false."),
});

export const editFileTool = defineTool({
  name: "edit_file",
  description:
    "Replace an exact piece of text in a file. Read the file first and copy old_string exactly; it must occur once " +
    "(or set replace_all). Line endings are kept (CRLF files can be edited with LF strings). Returns a diff of the change. " +
    "With an empty old_string it creates a file that does not exist yet.",
  kind: "write",
  inputSchema: editFileInput,
  describeAction(input, context) {
    return { paths: [path.resolve(context.workspaceRoot, input.path)] };
  },
  async execute(input, context) {
    const resolved = resolveWorkspacePath(context.workspaceRoot, input.path, { forWrite: true });
    if (!resolved.success) return resolved.error;
    const target = resolved.value;
    if (input.old_string === input.new_string) {
      return noChange(target.relative, "old_string and new_string are identical");
    }
    const loaded = await loadTextFile(context.workspaceRoot, target);
    if (!loaded.success) {
      if (loaded.missing && input.old_string === "") return createFile(target, input.new_string);
      return loaded.error;
    }
    const { text, mode } = loaded.value;
    if (isReadOnlyMode(mode)) return readOnlyFileError(target.relative, mode);
    if (!loaded.value.isUtf8) return notUtf8(target.relative);
    if (hasLoneSurrogate(input.old_string) || hasLoneSurrogate(input.new_string)) {
      return errorResult("INVALID_ARGUMENTS", {
        message: "old_string or new_string holds half of a character (an unpaired UTF-16 surrogate)",
        recovery_hint: "Send whole characters: an emoji or other astral character is one unit of the edit.",
        next_actions: [`read_file ${target.relative}`],
      });
    }
    if (input.old_string === "") {
      if (text === "")
        return writeEdit(
          target,
          "",
          input.new_string,
          mode,
          [{ oldIndex: 0, newIndex: 0 }],
          "",
          input.new_string,
        );
      return errorResult("INVALID_ARGUMENTS", {
        message: `old_string is empty but ${target.relative} already has content`,
        recovery_hint:
          "Give the exact text to replace (read the file first), or use write_file to replace the whole file.",
        next_actions: [`read_file ${target.relative}`],
      });
    }

    // A CRLF or LF file is matched on LF-normalised text and written back with its own endings;
    // a file with mixed endings is matched exactly, since normalising it would rewrite every line.
    const lineEnding = detectLineEnding(text);
    const normalise = lineEnding !== "mixed";
    const haystack = normalise ? toLf(text) : text;
    const needle = normalise ? toLf(input.old_string) : input.old_string;
    const replacement = normalise ? toLf(input.new_string) : input.new_string;

    // Every start, overlapping ones too; the replacements take them left to right without overlap.
    const starts = overlappingPositions(haystack, needle);
    const positions = withoutOverlaps(starts, needle.length);
    if (positions.length === 0 && lineEnding === "mixed" && input.replace_all !== true) {
      const mixed = editAcrossMixedEndings(text, input.old_string, input.new_string);
      if (mixed.kind === "edited")
        return writeEdit(
          target,
          text,
          mixed.updated,
          mode,
          [{ oldIndex: mixed.start, newIndex: mixed.start }],
          needle,
          replacement,
        );
      if (mixed.kind === "ambiguous") return ambiguous(target.relative, toLf(text), mixed.positions);
    }
    if (positions.length === 0) return noMatch(target.relative, haystack, needle);
    if (positions.length > 1 && input.replace_all !== true)
      return ambiguous(target.relative, haystack, positions);
    // One match without overlaps may still overlap another: which one was meant is unclear.
    if (starts.length > 1 && input.replace_all !== true) return ambiguous(target.relative, haystack, starts);

    const replacements: Replacement[] = [];
    const pieces: string[] = [];
    let cursor = 0;
    const shift = replacement.length - needle.length;
    for (const position of positions) {
      pieces.push(haystack.slice(cursor, position));
      replacements.push({ oldIndex: position, newIndex: position + shift * replacements.length });
      pieces.push(replacement);
      cursor = position + needle.length;
    }
    pieces.push(haystack.slice(cursor));
    const updated = pieces.join("");
    if (updated === haystack) return noChange(target.relative, "the replacement leaves the file unchanged");
    const content = lineEnding === "crlf" ? toCrlf(updated) : updated;
    return writeEdit(target, haystack, updated, mode, replacements, needle, replacement, content);
  },
});

async function writeEdit(
  target: WorkspacePath,
  oldText: string,
  newText: string,
  mode: number,
  replacements: readonly Replacement[],
  oldString: string,
  newString: string,
  content: string = newText,
): Promise<ToolResult> {
  const notWritten = await writeFileAtomically(target, content, mode);
  if (notWritten !== undefined) return notWritten;
  const snippet = renderEditSnippet(oldText, newText, replacements, oldString, newString);
  const count = replacements.length;
  return okResult(`Edited ${target.relative}: ${count} replacement${count === 1 ? "" : "s"}.\n${snippet}`, {
    summary: `edited ${target.relative} (${count} replacement${count === 1 ? "" : "s"})`,
    artifacts: [target.relative],
    metadata: { path: target.relative, kind: "file-edit", created: false, replacements: count },
  });
}

async function createFile(target: WorkspacePath, content: string): Promise<ToolResult> {
  const parentError = await ensureParentDirectory(target);
  if (parentError !== undefined) return parentError;
  const notWritten = await writeFileAtomically(target, content);
  if (notWritten !== undefined) return notWritten;
  return okResult(`Created ${target.relative}.`, {
    summary: `created ${target.relative}`,
    artifacts: [target.relative],
    metadata: { path: target.relative, kind: "file-edit", created: true, replacements: 1 },
  });
}

function notUtf8(relative: string): ToolResult {
  return errorResult("BINARY_FILE", {
    message: `${relative} is not UTF-8 text (another encoding such as Latin-1 or UTF-16); an edit would rewrite its other bytes`,
    recovery_hint:
      "Rewrite the whole file with write_file if you know its full content, or change it with a shell command that keeps its encoding.",
    next_actions: [`write_file ${relative}`],
    metadata: { path: relative },
  });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * In a file with mixed line endings, read_file shows every line end as LF, so a multi-line
 * old_string copied from it matches only with line ends ignored. Finds it that way; the
 * replacement takes the line ending of the text it replaces, and every other line keeps its own.
 */
function editAcrossMixedEndings(
  text: string,
  oldString: string,
  newString: string,
):
  | { readonly kind: "edited"; readonly updated: string; readonly start: number }
  | { readonly kind: "ambiguous"; readonly positions: readonly number[] }
  | { readonly kind: "none" } {
  const needle = toLf(oldString);
  if (!needle.includes("\n")) return { kind: "none" };
  const flat = toLf(text);
  const positions = overlappingPositions(flat, needle);
  if (positions.length > 1) return { kind: "ambiguous", positions };
  const [found] = positions;
  if (found === undefined) return { kind: "none" };
  // Maps an index of the LF text to the original: each "\r\n" before it adds one.
  const toOriginal = (flatIndex: number): number => {
    let original = 0;
    for (let seen = 0; seen < flatIndex; seen += 1) {
      if (text[original] === "\r" && text[original + 1] === "\n") original += 1;
      original += 1;
    }
    return original;
  };
  const start = toOriginal(found);
  const end = toOriginal(found + needle.length);
  const replaced = text.slice(start, end);
  const lfReplacement = toLf(newString);
  const replacement = replaced.includes("\r\n") ? toCrlf(lfReplacement) : lfReplacement;
  return { kind: "edited", updated: text.slice(0, start) + replacement + text.slice(end), start };
}

/** Every start of `needle`, overlapping ones too: "}\n}" occurs twice in "}\n}\n}". */
function overlappingPositions(haystack: string, needle: string): number[] {
  const positions: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + 1))
    positions.push(index);
  return positions;
}

function withoutOverlaps(starts: readonly number[], length: number): number[] {
  const kept: number[] = [];
  for (const start of starts) {
    const previous = kept.at(-1);
    if (previous === undefined || start >= previous + length) kept.push(start);
  }
  return kept;
}

function noMatch(relative: string, haystack: string, needle: string): ToolResult {
  const similar = findSimilarLines(haystack, needle);
  const collapse = (value: string): string => value.replace(/\s+/g, " ").trim();
  const whitespaceOnly = collapse(haystack).includes(collapse(needle));
  const listed = similar.map((line) => `  line ${line.lineNumber}: ${line.text.trim().slice(0, 200)}`);
  return errorResult("EDIT_NO_MATCH", {
    message: `old_string was not found in ${relative}${whitespaceOnly ? " (it matches only if whitespace or indentation is ignored)" : ""}`,
    output: similar.length > 0 ? `Most similar lines:\n${listed.join("\n")}` : "No similar lines found.",
    recovery_hint: `Re-read ${relative} with read_file${similar[0] ? ` around line ${similar[0].lineNumber}` : ""} and copy old_string exactly, including whitespace and indentation.`,
    next_actions: [
      `read_file ${relative}${similar[0] ? ` offset=${Math.max(1, similar[0].lineNumber - 10)} limit=40` : ""}`,
    ],
    metadata: { path: relative, similarLines: similar.map((line) => line.lineNumber) },
  });
}

function ambiguous(relative: string, haystack: string, positions: readonly number[]): ToolResult {
  const lineNumbers: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const position of positions) {
    for (
      let index = haystack.indexOf("\n", scanned);
      index !== -1 && index < position;
      index = haystack.indexOf("\n", index + 1)
    ) {
      line += 1;
      scanned = index + 1;
    }
    lineNumbers.push(line);
  }
  const shown = lineNumbers.slice(0, MAX_LISTED_OCCURRENCES).join(", ");
  return errorResult("EDIT_AMBIGUOUS", {
    message: `old_string occurs ${positions.length} times in ${relative} (lines ${shown}${lineNumbers.length > MAX_LISTED_OCCURRENCES ? ", …" : ""})`,
    recovery_hint:
      "Add surrounding lines to old_string so it matches exactly one place, or set replace_all to change every occurrence.",
    next_actions: [`read_file ${relative}`],
    metadata: { path: relative, occurrences: positions.length, lines: lineNumbers },
  });
}

function noChange(relative: string, reason: string): ToolResult {
  return errorResult("EDIT_NO_CHANGE", {
    message: `${reason}; nothing to do in ${relative}`,
    recovery_hint:
      "Send the text that should be there in new_string, different from old_string. Re-read the file if you think it already has the change.",
    next_actions: [`read_file ${relative}`],
  });
}
