import { randomBytes } from "node:crypto";
import { closeSync, constants, existsSync, openSync } from "node:fs";
import { chmod, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { errorResult, type ToolResult } from "../tool-result.js";
import { openedWhereResolved } from "./opened-where-resolved.js";
import type { WorkspacePath } from "./resolve-workspace-path.js";

/** Linux names an open folder's entries as `/proc/self/fd/<fd>/<name>`, whatever its path is now. */
const PROC_FD = "/proc/self/fd";

/**
 * Writes through a temporary file in the same directory and renames it over the target, so a
 * reader (or a crash) never sees half a file. `mode` keeps an existing file's permissions (an
 * executable script stays executable); without it the process umask applies as for a new file.
 *
 * The folder is opened first and checked to be the resolved one; the temporary file is made and
 * renamed through that open folder (`/proc/self/fd/<fd>/name`), so a folder on the path swapped
 * for a link after the path was resolved cannot send the write elsewhere. Returns an error result
 * when the folder is not the one resolved; where /proc is missing, the plain paths are used.
 */
export async function writeFileAtomically(
  target: WorkspacePath,
  content: string,
  mode?: number,
): Promise<ToolResult | undefined> {
  const directory = path.dirname(target.absolute);
  const temporaryName = `.${path.basename(target.absolute)}.${randomBytes(6).toString("hex")}.tmp`;
  const folder = existsSync(PROC_FD) ? openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY) : null;
  try {
    if (folder !== null && !openedWhereResolved(folder, directory)) return pathChangedError(target.relative);
    const base = folder === null ? directory : `${PROC_FD}/${folder}`;
    const temporary = path.join(base, temporaryName);
    // "wx" fails instead of following a symlink someone planted at the temporary name.
    const handle = await open(temporary, "wx", mode ?? 0o666);
    try {
      try {
        await handle.writeFile(content, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (mode !== undefined) await chmod(temporary, mode);
      await rename(temporary, path.join(base, path.basename(target.absolute)));
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return undefined;
  } finally {
    if (folder !== null) closeSync(folder);
  }
}

function pathChangedError(relative: string): ToolResult {
  return errorResult("INVALID_ARGUMENTS", {
    message: `a folder on the path of ${relative} changed into a symbolic link while it was being written; nothing was written`,
    recovery_hint:
      "Call the tool again: the path is resolved anew, and a link is followed only inside the workspace.",
    next_actions: ["list_dir ."],
    metadata: { path: relative },
  });
}
