import path from "node:path";
import { lstat } from "node:fs/promises";
import { runHostGit } from "./run-host-git.js";
import type { HostRepository } from "./host-repository.js";

async function hasDotGit(folder: string): Promise<boolean> {
  try {
    await lstat(path.join(folder, ".git"));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}

/**
 * The repositories nested in a work tree: gitlinks in the index whose folder holds a `.git`, and
 * untracked folders git reports as embedded repositories. Their config is whatever a sandboxed
 * command wrote, and a git started inside one would obey it, so the host's `git add` leaves them
 * out (pathspec exclusions) and every host git runs with `diff.ignoreSubmodules=all`.
 *
 * Only `git ls-files` runs here: it reads the index and lists folders, and starts no process in a
 * nested repository. Paths are relative to the work tree, sorted.
 */
export async function findNestedRepositories(
  repository: HostRepository & { readonly workTree: string },
): Promise<string[]> {
  const list = async (options: readonly string[]): Promise<string[]> => {
    const { stdout } = await runHostGit(repository, ["ls-files", "-z", ...options], {
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout.split("\0").filter((entry) => entry !== "");
  };
  const [staged, untracked] = await Promise.all([
    list(["--stage"]),
    list(["--others", "--exclude-standard"]),
  ]);
  const candidates = new Set<string>();
  for (const entry of staged) {
    // "<mode> <object> <stage>\t<path>"; 160000 is a gitlink (a submodule's commit).
    const tab = entry.indexOf("\t");
    if (tab !== -1 && entry.startsWith("160000 ")) candidates.add(entry.slice(tab + 1));
  }
  // git lists an embedded repository as its folder, with a trailing slash, and does not enter it.
  for (const entry of untracked) if (entry.endsWith("/")) candidates.add(entry.slice(0, -1));
  const nested: string[] = [];
  for (const candidate of candidates) {
    if (await hasDotGit(path.join(repository.workTree, candidate))) nested.push(candidate);
  }
  return nested.sort();
}
