import { closeSync, fstatSync, openSync } from "node:fs";
import { isBinaryFileSync } from "isbinaryfile";
import { errorResult, type ToolResult } from "../tool-result.js";
import {
  binaryFileError,
  fileNotFoundError,
  fileTooLargeError,
  isDirectoryError,
  notRegularFileError,
} from "./file-errors.js";
import { NO_FOLLOW_READ_FLAGS, openedWhereResolved } from "./opened-where-resolved.js";
import { readUpTo, readUpToSync } from "./read-up-to.js";
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
        ? readUpToSync(descriptor, maxBytes + 1, stats.size + 1)
        : await readUpTo(descriptor, maxBytes + 1, stats.size + 1);
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
