import { readFile } from "node:fs/promises";
import { errnoCode, ioError, PersistenceError } from "./persistence-error.js";

/**
 * JSON Lines logs that survive a crash (written by createGroupCommitLog): each value is one line,
 * and JSON.stringify escapes newlines, so a value never spans lines. A crash leaves every earlier
 * line intact and at most one torn line at the end, which the reader reports instead of failing.
 */
export function serializeJsonLine(value: unknown): Buffer {
  return Buffer.from(serializeJsonLineText(value), "utf8");
}

/** The same line as text, newline included: for callers that gather lines before one write. */
export function serializeJsonLineText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new PersistenceError("SCHEMA_INVALID", "a log entry could not be serialized as JSON", {
      cause: error,
    });
  }
  if (text === undefined) {
    throw new PersistenceError(
      "SCHEMA_INVALID",
      "a log entry must be a JSON value (got undefined or a function)",
    );
  }
  return `${text}\n`;
}

export interface JsonLinesContent {
  readonly values: readonly unknown[];
  /** The unterminated last line a crash left behind (1-based line number), or null. */
  readonly truncatedLastLine: { readonly lineNumber: number; readonly text: string } | null;
  /** Complete lines that are not JSON (a torn line that a later append terminated). */
  readonly invalidLines: readonly { readonly lineNumber: number; readonly reason: string }[];
}

/**
 * Read a log written by the appenders. A last line without "\n" is always treated as torn, even
 * when it happens to parse: `12` may be the first bytes of `123`.
 */
export async function readJsonLines(path: string): Promise<JsonLinesContent> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") {
      throw new PersistenceError("NOT_FOUND", `no such log: ${path}`, { path, cause: error });
    }
    throw ioError("read log", path, error);
  }
  return parseJsonLines(text);
}

export function parseJsonLines(text: string): JsonLinesContent {
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  const values: unknown[] = [];
  const invalidLines: { lineNumber: number; reason: string }[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      values.push(JSON.parse(line));
    } catch (error) {
      invalidLines.push({
        lineNumber: index + 1,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  });
  const truncatedLastLine = tail === "" ? null : { lineNumber: lines.length + 1, text: tail };
  return { values, truncatedLastLine, invalidLines };
}
