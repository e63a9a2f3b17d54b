/**
 * A line break and the indentation after it: a real one (`\n`, `\r\n`, `\r`), or its escape in a
 * JSON or log string, nested up to three levels (`\n`, `\\n`, `\\\\n`...). Terminals, `base64`
 * (76 columns), PEM (64) and log wrappers all break long values this way.
 */
export const LINE_BREAK = /(?:\r\n|\n|\r|\\{1,7}r\\{1,7}n|\\{1,7}[nr])[ \t]*/g;

export interface JoinedLines {
  /** The text with every line break and the indentation after it taken out. */
  readonly text: string;
  /** The original `[start, end)` of the joined span `[start, end)`. */
  originalSpan(start: number, end: number): { start: number; end: number };
  /** Whether the joined span `[start, end)` was cut by a line break in the original. */
  crossesBreak(start: number, end: number): boolean;
}

/**
 * Joins the lines of `text` so that a value wrapped across them reads as one string again, and
 * keeps what is needed to map a match back onto the original. Meant for short windows: a fresh
 * copy of a whole megabyte costs more than every redaction rule together.
 */
export function joinWrappedLines(text: string): JoinedLines {
  const pieces: string[] = [];
  // Piece k starts at joinedStarts[k] in the joined text and at originalStarts[k] in `text`.
  const joinedStarts: number[] = [0];
  const originalStarts: number[] = [0];
  let cursor = 0;
  let joinedLength = 0;
  LINE_BREAK.lastIndex = 0;
  for (let found = LINE_BREAK.exec(text); found !== null; found = LINE_BREAK.exec(text)) {
    pieces.push(text.slice(cursor, found.index));
    joinedLength += found.index - cursor;
    cursor = found.index + found[0].length;
    joinedStarts.push(joinedLength);
    originalStarts.push(cursor);
  }
  pieces.push(text.slice(cursor));

  /** The piece holding joined index `index`: the last one starting at or before it. */
  function pieceAt(index: number): number {
    let low = 0;
    let high = joinedStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((joinedStarts[middle] ?? 0) <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  function originalIndex(index: number): number {
    const piece = pieceAt(index);
    return (originalStarts[piece] ?? 0) + index - (joinedStarts[piece] ?? 0);
  }

  return {
    text: pieces.join(""),
    originalSpan: (start, end) => ({ start: originalIndex(start), end: originalIndex(end - 1) + 1 }),
    crossesBreak: (start, end) => pieceAt(start) !== pieceAt(end - 1),
  };
}

/**
 * Calls `visit(start, end)` for every line break of `text` (`end` is past the indentation that
 * follows). Searches with indexOf rather than LINE_BREAK: on a megabyte of output this runs on
 * every redaction, and indexOf is several times faster than a regex with alternatives.
 */
export function forEachLineBreak(text: string, visit: (start: number, end: number) => void): void {
  let newline = text.indexOf("\n");
  let carriageReturn = text.indexOf("\r");
  let backslash = text.indexOf("\\");
  let cursor = 0;
  while (newline !== -1 || carriageReturn !== -1 || backslash !== -1) {
    const next = Math.min(
      newline === -1 ? Infinity : newline,
      carriageReturn === -1 ? Infinity : carriageReturn,
      backslash === -1 ? Infinity : backslash,
    );
    const breakEnd = lineBreakEnd(text, next);
    if (breakEnd > next) {
      let end = breakEnd;
      while (text[end] === " " || text[end] === "\t") end += 1;
      visit(next, end);
      cursor = end;
    } else {
      cursor = next + 1;
    }
    if (newline !== -1 && newline < cursor) newline = text.indexOf("\n", cursor);
    if (carriageReturn !== -1 && carriageReturn < cursor) carriageReturn = text.indexOf("\r", cursor);
    if (backslash !== -1 && backslash < cursor) backslash = text.indexOf("\\", cursor);
  }
}

const ESCAPE_AT = /\\{1,7}r\\{1,7}n|\\{1,7}[nr]/y;

/** Where the line break starting at `index` ends, or `index` when none starts there. */
function lineBreakEnd(text: string, index: number): number {
  const character = text[index];
  if (character === "\n") return index + 1;
  if (character === "\r") return text[index + 1] === "\n" ? index + 2 : index + 1;
  ESCAPE_AT.lastIndex = index;
  return ESCAPE_AT.test(text) ? ESCAPE_AT.lastIndex : index;
}
