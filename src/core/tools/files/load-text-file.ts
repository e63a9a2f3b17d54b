import { readFile, stat } from "node:fs/promises";
import { isBinaryFile } from "isbinaryfile";
import type { ToolResult } from "../tool-result.js";
import {
  binaryFileError,
  fileNotFoundError,
  fileTooLargeError,
  isDirectoryError,
  notRegularFileError,
} from "./file-errors.js";
import { isMissingError, type WorkspacePath } from "./resolve-workspace-path.js";

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
 * Reads a workspace file as UTF-8 text, refusing what a text tool cannot handle well:
 * directories, pipes and devices (reading one could block forever), huge and binary files.
 */
export async function loadTextFile(
  root: string,
  target: WorkspacePath,
  maxBytes = MAX_TEXT_FILE_BYTES,
): Promise<LoadTextFileResult> {
  let stats;
  try {
    stats = await stat(target.absolute);
  } catch (error) {
    if (isMissingError(error)) {
      return { success: false, missing: true, error: await fileNotFoundError(root, target.relative) };
    }
    throw error;
  }
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
  const buffer = await readFile(target.absolute);
  if (buffer.length > 0 && (await isBinaryFile(buffer, buffer.length))) {
    return { success: false, missing: false, error: binaryFileError(target.relative) };
  }
  return {
    success: true,
    value: {
      text: buffer.toString("utf8"),
      bytes: buffer.length,
      mode: stats.mode & 0o7777,
      isUtf8: isValidUtf8(buffer),
    },
  };
}
