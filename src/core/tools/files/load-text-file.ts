import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  read as readChunk,
  readlinkSync,
  readSync,
} from "node:fs";
import { isBinaryFileSync } from "isbinaryfile";
import { errorResult, type ToolResult } from "../tool-result.js";
import {
  binaryFileError,
  fileNotFoundError,
  fileTooLargeError,
  isDirectoryError,
  notRegularFileError,
} from "./file-errors.js";
import { hasCode, isMissingError, type WorkspacePath } from "./resolve-workspace-path.js";

/** Largest file read or edited in one piece. */
export const MAX_TEXT_FILE_BYTES = 5 * 1024 * 1024;

export interface TextFile {
  readonly text: string;
  readonly bytes: number;
  /** Permission bits, kept when the file is rewritten. */
  readonly mode: number;
  /**
   * False when the bytes are not valid UTF-8 (Latin-1, UTF-16...): `text` then holds U+FFFD in
   * their place, and writing it back would change bytes the edit never meant to touch.
   */
  readonly isUtf8: boolean;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function isValidUtf8(buffer: Buffer): boolean {
  try {
    strictUtf8.decode(buffer);
    return true;
  } catch {
    return false;
  }
}

export type LoadTextFileResult =
  | { readonly success: true; readonly value: TextFile }
  | { readonly success: false; readonly error: ToolResult; readonly missing: boolean };

/**
 * Files up to this size are read synchronously: on a local disk that takes microseconds, while each
 * asynchronous step (open, stat, read, close) is a round trip through libuv's thread pool, about
 * 50–100 µs here. Larger files are read asynchronously so a slow disk never stalls the process.
 */
const SYNC_READ_MAX_BYTES = 256 * 1024;
const ASYNC_CHUNK_BYTES = 1024 * 1024;

/**
 * Opened without blocking (a FIFO swapped in after the checks cannot hang the process: the open
 * returns at once and the descriptor is refused as not a regular file) and without following a
 * final symlink (the path is already resolved; a link there now was put in after the check).
 */
export const NO_FOLLOW_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * Reads a workspace file as UTF-8 text, refusing what a text tool cannot handle well:
 * directories, pipes and devices (reading one could block forever), huge and binary files.
 * Everything is checked on the one descriptor that is read, not on the path before opening it.
 */
export async function loadTextFile(
  root: string,
  target: WorkspacePath,
  maxBytes = MAX_TEXT_FILE_BYTES,
): Promise<LoadTextFileResult> {
  let descriptor: number;
  try {
    descriptor = openSync(target.absolute, NO_FOLLOW_READ_FLAGS);
  } catch (error) {
    if (isMissingError(error)) {
      return { success: false, missing: true, error: await fileNotFoundError(root, target.relative) };
    }
    if (hasCode(error, "ELOOP")) {
      return { success: false, missing: false, error: swappedForLinkError(target.relative) };
    }
    // A socket cannot be opened at all; a device may refuse.
    if (hasCode(error, "ENXIO") || hasCode(error, "ENODEV") || hasCode(error, "EOPNOTSUPP")) {
      return { success: false, missing: false, error: notRegularFileError(target.relative) };
    }
    throw error;
  }
  let buffer: Buffer;
  let mode: number;
  try {
    if (!openedWhereResolved(descriptor, target.absolute)) {
      return { success: false, missing: false, error: swappedForLinkError(target.relative) };
    }
    const stats = fstatSync(descriptor);
    if (stats.isDirectory()) {
      return { success: false, missing: false, error: isDirectoryError(target.relative) };
    }
    if (!stats.isFile()) {
      return { success: false, missing: false, error: notRegularFileError(target.relative) };
    }
    if (stats.size > maxBytes) {
      return {
        success: false,
        missing: false,
        error: fileTooLargeError(target.relative, stats.size, maxBytes),
      };
    }
    mode = stats.mode & 0o7777;
    buffer =
      stats.size <= SYNC_READ_MAX_BYTES
        ? readAllSync(descriptor, stats.size, maxBytes)
        : await readAll(descriptor, maxBytes);
  } finally {
    closeSync(descriptor);
  }
  // The file may have grown between the stat and the read.
  if (buffer.length > maxBytes) {
    return {
      success: false,
      missing: false,
      error: fileTooLargeError(target.relative, buffer.length, maxBytes),
    };
  }
  if (buffer.length > 0 && isBinaryFileSync(buffer, buffer.length)) {
    return { success: false, missing: false, error: binaryFileError(target.relative) };
  }
  return {
    success: true,
    value: {
      text: buffer.toString("utf8"),
      bytes: buffer.length,
      mode,
      isUtf8: isValidUtf8(buffer),
    },
  };
}

/**
 * O_NOFOLLOW guards only the last name: a folder on the way may have been swapped for a link since
 * the path was resolved. The kernel says where the descriptor really is (Linux: /proc/self/fd);
 * anything but the resolved path is refused. Where /proc is missing, the open's own checks stand.
 */
export function openedWhereResolved(descriptor: number, resolvedAbsolute: string): boolean {
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return true;
  }
  return opened === resolvedAbsolute;
}

/** The resolved real path is a symlink now: something replaced the file after the check. */
function swappedForLinkError(relative: string): ToolResult {
  return errorResult("INVALID_ARGUMENTS", {
    message: `${relative} changed into a symbolic link (or a folder on its path did) after its path was checked; it was not followed`,
    recovery_hint:
      "Call the tool again: the path is resolved anew, and a link is followed only inside the workspace.",
    next_actions: [`list_dir ${relative.includes("/") ? relative.slice(0, relative.lastIndexOf("/")) : "."}`],
    metadata: { path: relative },
  });
}

/** Reads to the end of the file, which may have changed size since it was measured. */
function readAllSync(descriptor: number, expectedSize: number, maxBytes: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let chunk = Buffer.allocUnsafe(Math.max(expectedSize + 1, 4096));
  for (;;) {
    const read = readSync(descriptor, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    if (total > maxBytes) break;
    if (read === chunk.length) chunk = Buffer.allocUnsafe(chunk.length);
    else chunk = chunk.subarray(read);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
}

/** The same, without blocking the process: for files large enough that a slow disk would show. */
async function readAll(descriptor: number, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(ASYNC_CHUNK_BYTES);
    const read = await new Promise<number>((resolve, reject) => {
      readChunk(descriptor, chunk, 0, chunk.length, null, (error, bytes) =>
        error ? reject(error) : resolve(bytes),
      );
    });
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    // A file that keeps growing is not read past the limit.
    if (total > maxBytes) break;
  }
  return Buffer.concat(chunks, total);
}
