import { lstat } from "node:fs/promises";

/**
 * Whether a directory entry exists at `target`, a symlink included (not followed). A missing
 * entry, or a path through something that is not a folder, is false; other errors are thrown.
 */
export async function pathEntryExists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}
