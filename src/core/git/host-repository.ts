import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { isPathInside } from "../paths/index.js";
import { HostGitError } from "./host-git-error.js";

/**
 * A repository as the host's git sees it: always named explicitly, never discovered from a
 * folder, so nothing a sandboxed command writes in the work tree decides which git directory,
 * configuration, hooks or object stores the host uses.
 */
export interface HostRepository {
  /**
   * A git directory no sandbox can write: outside every sandbox's writable area (the App's and
   * eval's checkouts keep it beside the work tree), or the work tree's own `.git` folder, which
   * every sandbox over that work tree mounts read-only.
   */
  readonly gitDirectory: string;
  /** The checked-out files; absent for plumbing on objects alone (a mirror). */
  readonly workTree?: string;
}

/**
 * Refuses a repository whose git directory a sandboxed command could have written or redirected:
 * one inside the work tree other than its root `.git` folder (which every sandbox mounts
 * read-only), or a `.git` that is a symbolic link. Checked as named and again on real paths, at
 * every call, because it is the invariant the rest of the host's git relies on.
 */
export async function assertHostOwnedRepository(repository: HostRepository): Promise<void> {
  if (repository.workTree === undefined) return;
  const named = {
    gitDirectory: path.resolve(repository.gitDirectory),
    workTree: path.resolve(repository.workTree),
  };
  const [gitDirectory, workTree] = await Promise.all([
    realpath(repository.gitDirectory),
    realpath(repository.workTree),
  ]).catch((error: unknown) => {
    throw new HostGitError(
      "UNSAFE_REPOSITORY",
      `the repository ${repository.gitDirectory} (work tree ${repository.workTree ?? "none"}) cannot be resolved`,
      { cause: error },
    );
  });
  for (const [directory, tree] of [
    [named.gitDirectory, named.workTree],
    [gitDirectory, workTree],
  ] as const) {
    if (!isPathInside(tree, directory)) continue;
    const ownDotGit = path.join(tree, ".git");
    const entry = await lstat(ownDotGit).catch(() => undefined);
    if (directory === ownDotGit && entry?.isDirectory() === true) continue;
    throw new HostGitError(
      "UNSAFE_REPOSITORY",
      `the git directory ${repository.gitDirectory} lies inside the work tree ${repository.workTree}, where sandboxed commands write; the host's git never reads one there`,
    );
  }
}
