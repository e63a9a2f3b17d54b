import { readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { HostRepository } from "../../../core/git/index.js";

/**
 * In the mirror's git directory, which no sandbox mounts (they see its `objects/` read-only):
 * the last commit whose every blob the mirror holds. The next checkout only asks git which blobs
 * differ from it, instead of walking its whole tree.
 */
const RECORD_NAME = "agentforge-complete-commit";
const SHA_PATTERN = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export async function readCompleteCommit(mirror: HostRepository): Promise<string | null> {
  try {
    const text = (await readFile(path.join(mirror.gitDirectory, RECORD_NAME), "utf8")).trim();
    return SHA_PATTERN.test(text) ? text : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Written beside and renamed, so a reader never sees half a record. */
export async function writeCompleteCommit(mirror: HostRepository, sha: string): Promise<void> {
  const target = path.join(mirror.gitDirectory, RECORD_NAME);
  await writeFile(`${target}.partial`, `${sha}\n`);
  await rename(`${target}.partial`, target);
}
