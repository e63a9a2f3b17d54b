/**
 * Blanks out the parts of a GitHub comment that are not prose a person addressed to the bot:
 * fenced and indented code blocks, inline code spans, block quotes (with their lazy
 * continuation lines), HTML comments and <pre>/<code> elements. The result has the same length
 * and line breaks as the input, so an offset found in it points at the same place in the
 * original text.
 *
 * No Markdown parser is installed, so this is a small scanner over CommonMark's block and
 * inline rules. Where it is unsure it hides more, not less: a command it misses can be typed
 * again, a command quoted from someone else must never run.
 */
export function maskHiddenMarkdown(body: string): string {
  return maskInline(maskBlocks(body));
}

const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;
const QUOTE_LINE = /^ {0,3}>/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:\s|$)/;
const INDENTED = /^(?: {4}|\t| {1,3}\t)/;

function isBlank(line: string): boolean {
  return line.trim().length === 0;
}

function blank(text: string): string {
  return text.replace(/[^\n]/g, " ");
}

function maskBlocks(body: string): string {
  const lines = body.split("\n");
  let fence: { marker: string; length: number } | null = null;
  let isInQuote = false;
  let isInIndentedCode = false;
  let isInList = false;
  let previousWasBlank = true;
  const output = lines.map((line) => {
    const blankLine = isBlank(line);
    if (fence !== null) {
      const trimmed = line.trim();
      const closing = new RegExp(`^${fence.marker === "`" ? "`" : "~"}{${fence.length},}$`);
      if (closing.test(trimmed)) fence = null;
      previousWasBlank = false;
      return blank(line);
    }
    const opening = FENCE_OPEN.exec(line);
    // A backtick fence's info string may not contain a backtick (CommonMark 4.5).
    if (opening !== null && !(opening[1]!.startsWith("`") && opening[2]!.includes("`"))) {
      fence = { marker: opening[1]![0]!, length: opening[1]!.length };
      isInQuote = false;
      isInIndentedCode = false;
      previousWasBlank = false;
      return blank(line);
    }
    if (QUOTE_LINE.test(line) || (isInQuote && !blankLine)) {
      isInQuote = true;
      previousWasBlank = false;
      return blank(line);
    }
    isInQuote = false;
    if (blankLine) {
      previousWasBlank = true;
      return line;
    }
    if (isInIndentedCode && INDENTED.test(line)) return blank(line);
    isInIndentedCode = false;
    if (LIST_ITEM.test(line)) isInList = true;
    else if (!INDENTED.test(line) && previousWasBlank) isInList = false;
    if (INDENTED.test(line) && previousWasBlank && !isInList) {
      isInIndentedCode = true;
      previousWasBlank = false;
      return blank(line);
    }
    previousWasBlank = false;
    return line;
  });
  return output.join("\n");
}

const HIDDEN_ELEMENTS = ["pre", "code", "tt", "samp", "kbd"];

function maskInline(text: string): string {
  // One entry per UTF-16 code unit, so indices match the original string.
  const units = text.split("");
  const lower = text.toLowerCase();
  const closers = createBacktickRunIndex(text);
  const hide = (from: number, to: number): void => {
    for (let position = from; position < to && position < units.length; position += 1) {
      if (units[position] !== "\n") units[position] = " ";
    }
  };
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === "\\") {
      index += 2;
      continue;
    }
    if (character === "<" && text.startsWith("<!--", index)) {
      const end = text.indexOf("-->", index + 4);
      const stop = end === -1 ? text.length : end + 3;
      hide(index, stop);
      index = stop;
      continue;
    }
    if (character === "<") {
      const element = HIDDEN_ELEMENTS.find((name) => startsWithTag(lower, index, name));
      if (element !== undefined) {
        const close = lower.indexOf(`</${element}`, index + 1);
        const stop = close === -1 ? text.length : close + element.length + 3;
        hide(index, stop);
        index = stop;
        continue;
      }
    }
    if (character === "`") {
      let runEnd = index;
      while (text[runEnd] === "`") runEnd += 1;
      const closing = closers.findClosing(runEnd, runEnd - index);
      if (closing === -1) {
        index = runEnd;
        continue;
      }
      hide(index, closing);
      index = closing;
      continue;
    }
    index += 1;
  }
  return units.join("");
}

function startsWithTag(lower: string, index: number, name: string): boolean {
  if (!lower.startsWith(name, index + 1)) return false;
  const after = lower[index + 1 + name.length];
  return after === ">" || after === " " || after === "\t" || after === "\n" || after === "/";
}

/**
 * Finds the run of exactly `length` backticks that closes a code span opened before `from`.
 * Runs and blank lines are indexed once, so a comment full of stray backticks stays linear.
 * A code span cannot cross a blank line: that ends the paragraph.
 */
function createBacktickRunIndex(text: string): { findClosing(from: number, length: number): number } {
  const runsByLength = new Map<number, number[]>();
  for (const match of text.matchAll(/`+/g)) {
    const runs = runsByLength.get(match[0].length) ?? [];
    runs.push(match.index + match[0].length);
    runsByLength.set(match[0].length, runs);
  }
  const paragraphBreaks = [...text.matchAll(/\n[ \t]*\n/g)].map((match) => match.index);
  const cursors = new Map<number, number>();
  let breakCursor = 0;
  return {
    findClosing(from, length) {
      while (breakCursor < paragraphBreaks.length && paragraphBreaks[breakCursor]! < from) breakCursor += 1;
      const limit = paragraphBreaks[breakCursor] ?? text.length;
      const runs = runsByLength.get(length) ?? [];
      let cursor = cursors.get(length) ?? 0;
      while (cursor < runs.length && runs[cursor]! - length < from) cursor += 1;
      cursors.set(length, cursor);
      const end = runs[cursor];
      return end !== undefined && end <= limit ? end : -1;
    },
  };
}
