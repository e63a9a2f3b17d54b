import { open, type FileHandle } from "node:fs/promises";
import { isBinaryFileSync } from "isbinaryfile";
import { NO_FOLLOW_READ_FLAGS, openedWhereResolved } from "./opened-where-resolved.js";
import { readUpTo } from "./read-up-to.js";
import { hasCode, isMissingError } from "./resolve-workspace-path.js";

/** Files larger than this are skipped: they are rarely source and slow to scan. */
export const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
/** Only this much of a line is searched, which bounds the cost of a slow pattern on minified code. */
export const MAX_SEARCHED_LINE_CHARS = 10_000;
const CONCURRENCY = 16;

/** What the search needs of a compiled pattern (RE2 in the grep tool). */
export interface LineMatcher {
  test(text: string): boolean;
}

export interface SearchTarget {
  readonly relative: string;
  readonly absolute: string;
}

export interface ShownLine {
  /** 1-based. */
  readonly lineNumber: number;
  readonly text: string;
  readonly isMatch: boolean;
}

export interface FileMatches {
  readonly relative: string;
  readonly matchCount: number;
  /** The first `maxMatchesPerFile` matching lines with their context, in line order. */
  readonly shown: readonly ShownLine[];
}

export interface SearchSummary {
  readonly files: FileMatches[];
  filesSearched: number;
  skippedLarge: number;
  skippedBinary: number;
}

export interface SearchOptions {
  readonly regex: LineMatcher;
  /** Tested on a whole file first to skip it cheaply; undefined when that would not be sound. */
  readonly prefilter: LineMatcher | undefined;
  /** Set when the pattern is a plain case-sensitive literal: files are skipped without decoding. */
  readonly literal?: Buffer;
  readonly maxMatchesPerFile: number;
  readonly contextLines: number;
  readonly signal?: AbortSignal;
}

/** Searches files line by line with bounded concurrency; results come back in input order. */
export async function searchFiles(
  targets: readonly SearchTarget[],
  options: SearchOptions,
): Promise<SearchSummary> {
  const results: (FileMatches | undefined)[] = new Array<FileMatches | undefined>(targets.length);
  const summary: SearchSummary = { files: [], filesSearched: 0, skippedLarge: 0, skippedBinary: 0 };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length && options.signal?.aborted !== true) {
      const index = next;
      next += 1;
      const target = targets[index];
      if (target !== undefined) results[index] = await searchFile(target, options, summary);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
  for (const result of results) {
    if (result !== undefined) summary.files.push(result);
  }
  return summary;
}

async function searchFile(
  target: SearchTarget,
  options: SearchOptions,
  summary: SearchSummary,
): Promise<FileMatches | undefined> {
  // Opened once, without following a final symlink or blocking on a FIFO, and checked on that
  // descriptor: what was found by the walk may have been swapped since.
  let handle: FileHandle;
  try {
    handle = await open(target.absolute, NO_FOLLOW_READ_FLAGS);
  } catch (error) {
    // Deleted since the walk, swapped for a link, or a socket: no matches.
    if (isMissingError(error) || hasCode(error, "ELOOP") || hasCode(error, "ENXIO")) return undefined;
    throw error;
  }
  let buffer: Buffer;
  try {
    if (!openedWhereResolved(handle.fd, target.absolute)) return undefined;
    const stats = await handle.stat();
    if (!stats.isFile()) return undefined;
    if (stats.size > MAX_SEARCHED_FILE_BYTES) {
      summary.skippedLarge += 1;
      return undefined;
    }
    buffer = await readUpTo(handle, MAX_SEARCHED_FILE_BYTES + 1, stats.size + 1);
    if (buffer.length > MAX_SEARCHED_FILE_BYTES) {
      summary.skippedLarge += 1;
      return undefined;
    }
  } finally {
    await handle.close();
  }
  summary.filesSearched += 1;
  if (options.literal !== undefined && !buffer.includes(options.literal)) {
    return undefined;
  }
  if (buffer.length > 0 && isBinaryFileSync(buffer, buffer.length)) {
    summary.skippedBinary += 1;
    return undefined;
  }
  const text = buffer.toString("utf8");
  // Lines are matched without their "\r"; the whole-file check must see the same line ends.
  if (
    options.prefilter !== undefined &&
    !options.prefilter.test(text.includes("\r") ? text.replaceAll("\r\n", "\n") : text)
  ) {
    return undefined;
  }
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const matchingLines: number[] = [];
  let matchCount = 0;
  for (let index = 0; index < lines.length; index += 1) {
    const line = withoutCarriageReturn(lines[index] ?? "");
    if (
      options.regex.test(
        line.length > MAX_SEARCHED_LINE_CHARS ? line.slice(0, MAX_SEARCHED_LINE_CHARS) : line,
      )
    ) {
      matchCount += 1;
      if (matchingLines.length < options.maxMatchesPerFile) matchingLines.push(index + 1);
    }
  }
  if (matchCount === 0) return undefined;
  // Only the lines to show are kept, so a search with many matches does not hold whole files.
  const matches = new Set(matchingLines);
  const shown: ShownLine[] = [];
  let lastShown = 0;
  for (const lineNumber of matchingLines) {
    const from = Math.max(1, lineNumber - options.contextLines, lastShown + 1);
    const to = Math.min(lines.length, lineNumber + options.contextLines);
    for (let current = from; current <= to; current += 1) {
      shown.push({
        lineNumber: current,
        text: withoutCarriageReturn(lines[current - 1] ?? ""),
        isMatch: matches.has(current),
      });
      lastShown = current;
    }
  }
  return { relative: target.relative, matchCount, shown };
}

function withoutCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
