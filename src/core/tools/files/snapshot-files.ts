import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isMissingError } from "./resolve-workspace-path.js";

/** What a set of workspace paths held: each regular file's bytes and mode, or that it was absent. */
export interface FilesSnapshot {
  /** Puts every file back as it was and removes the regular files that were absent. */
  restore(): void;
}

interface Held {
  readonly absolute: string;
  readonly content?: Buffer;
  readonly mode?: number;
}

/**
 * Taken just before git writes a patch: `git apply --check` proves every hunk applies, but the
 * write can still fail on the file system (a new file under a path that is a file, a directory in
 * the way, a file that cannot be replaced), after some files were already written. Restoring the
 * snapshot keeps the patch all or nothing. Paths that are neither a regular file nor absent
 * (directories, links, devices) are left alone: the patch may not change those.
 */
export function snapshotFiles(root: string, relativePaths: readonly string[]): FilesSnapshot {
  const held: Held[] = [];
  for (const relative of new Set(relativePaths)) {
    const absolute = path.join(root, relative);
    try {
      const stats = lstatSync(absolute);
      if (stats.isFile()) held.push({ absolute, content: readFileSync(absolute), mode: stats.mode & 0o7777 });
    } catch (error) {
      if (!isMissingError(error)) throw error;
      held.push({ absolute });
    }
  }
  return {
    restore() {
      for (const item of held) {
        if (item.content === undefined) {
          removeIfRegularFile(item.absolute);
          continue;
        }
        // Written in place of whatever is there now (git may have replaced or removed the file).
        removeIfRegularFile(item.absolute);
        mkdirSync(path.dirname(item.absolute), { recursive: true });
        writeFileSync(item.absolute, item.content, { mode: item.mode, flag: "wx" });
        if (item.mode !== undefined) chmodSync(item.absolute, item.mode);
      }
    },
  };
}

function removeIfRegularFile(absolute: string): void {
  try {
    if (lstatSync(absolute).isFile()) rmSync(absolute);
  } catch (error) {
    if (!isMissingError(error)) throw error;
  }
}
