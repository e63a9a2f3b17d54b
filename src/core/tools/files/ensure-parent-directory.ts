import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { ToolResult } from "../tool-result.js";
import { notADirectoryError } from "./file-errors.js";
import { hasCode, type WorkspacePath } from "./resolve-workspace-path.js";

/**
 * Creates the missing parents of a file about to be written. They are inside the workspace:
 * resolveWorkspacePath checked the nearest existing ancestor by real path. Returns an error
 * result when a file sits where a directory is needed.
 */
export async function ensureParentDirectory(target: WorkspacePath): Promise<ToolResult | undefined> {
  try {
    await mkdir(path.dirname(target.absolute), { recursive: true });
    return undefined;
  } catch (error) {
    if (hasCode(error, "EEXIST") || hasCode(error, "ENOTDIR")) {
      return notADirectoryError(path.posix.dirname(target.relative));
    }
    throw error;
  }
}
