import { closeSync, fstatSync, fsyncSync, openSync, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open, readFile } from "node:fs/promises";
import { errnoCode, ioError, PersistenceError } from "./persistence-error.js";
import { PRIVATE_FILE_MODE } from "./resolve-data-dir.js";
import { writeAllSync } from "./write-file-atomic.js";

/**
 * JSON Lines logs that survive a crash: each value is one line, written with a single write and
 * flushed with fsync before `append` returns, so a crash leaves every earlier line intact and at
 * most one torn line at the end. JSON.stringify escapes newlines, so a value never spans lines.
 *
 * Opening a log whose last line is torn first ends that line with "\n": the next value then
 * starts on a line of its own instead of being glued to the torn bytes (which would make both
 * unreadable). The reader reports such a line instead of failing.
 */
export interface JsonlAppender {
  readonly path: string;
  append(value: unknown): Promise<void>;
  close(): Promise<void>;
}

export interface JsonlAppenderSync {
  readonly path: string;
  append(value: unknown): void;
  close(): void;
}

export function serializeJsonLine(value: unknown): Buffer {
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
  return Buffer.from(`${text}\n`, "utf8");
}

const NEWLINE = Buffer.from("\n");

export async function createJsonlAppender(path: string): Promise<JsonlAppender> {
  let handle: FileHandle;
  try {
    // "a+" appends every write at the end and still lets us read the last byte.
    handle = await open(path, "a+", PRIVATE_FILE_MODE);
  } catch (error) {
    throw ioError("open log", path, error);
  }
  let needsNewline = false;
  try {
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      needsNewline = last[0] !== NEWLINE[0];
    }
  } catch (error) {
    await handle.close();
    throw ioError("inspect log", path, error);
  }
  // Appends are chained so that concurrent callers never interleave bytes within a line.
  let queue: Promise<void> = Promise.resolve();
  let isClosed = false;

  const writeLine = async (line: Buffer): Promise<void> => {
    const bytes = needsNewline ? Buffer.concat([NEWLINE, line]) : line;
    try {
      let offset = 0;
      while (offset < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      needsNewline = false;
      await handle.sync();
    } catch (error) {
      // A failed write may have left part of the line behind: end it before the next value.
      needsNewline = true;
      throw ioError("append to", path, error);
    }
  };

  return {
    path,
    append(value: unknown): Promise<void> {
      if (isClosed)
        return Promise.reject(new PersistenceError("IO_ERROR", `log ${path} is closed`, { path }));
      const line = serializeJsonLine(value);
      const result = queue.then(() => writeLine(line));
      queue = result.catch(() => undefined);
      return result;
    },
    async close(): Promise<void> {
      if (isClosed) return;
      isClosed = true;
      await queue;
      await handle.close();
    },
  };
}

export function createJsonlAppenderSync(path: string): JsonlAppenderSync {
  let descriptor: number;
  try {
    descriptor = openSync(path, "a+", PRIVATE_FILE_MODE);
  } catch (error) {
    throw ioError("open log", path, error);
  }
  let needsNewline = false;
  try {
    const { size } = fstatSync(descriptor);
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(descriptor, last, 0, 1, size - 1);
      needsNewline = last[0] !== NEWLINE[0];
    }
  } catch (error) {
    closeSync(descriptor);
    throw ioError("inspect log", path, error);
  }
  let isClosed = false;
  return {
    path,
    append(value: unknown): void {
      if (isClosed) throw new PersistenceError("IO_ERROR", `log ${path} is closed`, { path });
      const line = serializeJsonLine(value);
      const bytes = needsNewline ? Buffer.concat([NEWLINE, line]) : line;
      try {
        writeAllSync(descriptor, bytes);
        needsNewline = false;
        fsyncSync(descriptor);
      } catch (error) {
        needsNewline = true;
        throw ioError("append to", path, error);
      }
    },
    close(): void {
      if (isClosed) return;
      isClosed = true;
      closeSync(descriptor);
    },
  };
}

/** Append one value durably, opening and closing the log around it. */
export async function appendJsonLine(path: string, value: unknown): Promise<void> {
  const appender = await createJsonlAppender(path);
  try {
    await appender.append(value);
  } finally {
    await appender.close();
  }
}

export function appendJsonLineSync(path: string, value: unknown): void {
  const appender = createJsonlAppenderSync(path);
  try {
    appender.append(value);
  } finally {
    appender.close();
  }
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
