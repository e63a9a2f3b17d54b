const CONTEXT_LINES = 2;
const MAX_HUNKS = 5;
const MAX_LINES_PER_SIDE = 30;
const MAX_LINE_CHARS = 200;

export interface Replacement {
  /** Offset of the replaced text in the old content. */
  readonly oldIndex: number;
  /** Offset of the inserted text in the new content. */
  readonly newIndex: number;
}

/**
 * A unified-diff-like view of each replacement with line numbers, so the model can check the
 * edit without reading the file again. Content is LF-normalised here.
 */
export function renderEditSnippet(
  oldText: string,
  newText: string,
  replacements: readonly Replacement[],
  oldString: string,
  newString: string,
): string {
  const oldLines = oldText.split("\n");
  const newLines = newText.split("\n");
  const oldSpan = countNewlines(oldString);
  const newSpan = countNewlines(newString);
  const hunks = replacements.slice(0, MAX_HUNKS).map((replacement) => {
    const oldStart = lineNumberAt(oldText, replacement.oldIndex);
    const newStart = lineNumberAt(newText, replacement.newIndex);
    const before = Math.max(1, oldStart - CONTEXT_LINES);
    const out: string[] = [`@@ -${oldStart},${oldSpan + 1} +${newStart},${newSpan + 1} @@`];
    for (let line = before; line < oldStart; line += 1) out.push(format(" ", line, oldLines[line - 1]));
    out.push(...side("-", oldLines, oldStart, oldSpan));
    out.push(...side("+", newLines, newStart, newSpan));
    const afterStart = newStart + newSpan + 1;
    for (let line = afterStart; line < afterStart + CONTEXT_LINES && line <= newLines.length; line += 1) {
      out.push(format(" ", line, newLines[line - 1]));
    }
    return out.join("\n");
  });
  if (replacements.length > MAX_HUNKS)
    hunks.push(`[${replacements.length - MAX_HUNKS} more replacements not shown]`);
  return hunks.join("\n");
}

function side(marker: string, lines: readonly string[], start: number, span: number): string[] {
  const out: string[] = [];
  const last = start + span;
  for (let line = start; line <= last; line += 1) {
    if (line - start >= MAX_LINES_PER_SIDE) {
      out.push(`${marker}      … ${last - line + 1} more lines`);
      break;
    }
    out.push(format(marker, line, lines[line - 1]));
  }
  return out;
}

function format(marker: string, lineNumber: number, text: string | undefined): string {
  const line = text ?? "";
  const clipped = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
  return `${marker}${String(lineNumber).padStart(5)}  ${clipped}`;
}

function lineNumberAt(text: string, index: number): number {
  return countNewlines(text.slice(0, index)) + 1;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count += 1;
  return count;
}
