import path from "node:path";
import { pathEntryExists } from "./path-entry-exists.js";
import { runWorkspaceGit } from "./run-workspace-git.js";

/**
 * The git repositories nested in a workspace that the host's git would step into: gitlinks in the
 * index whose folder holds a `.git`, and untracked folders git reports as embedded repositories.
 *
 * Sandboxed commands may write anywhere in the workspace, so such a repository's own config is
 * theirs to write. When the host then runs `git add`, `git commit`, `git status` or `git diff`
 * in the outer repository, git starts a second git in every populated gitlink to see whether it
 * changed, and that one obeys the nested config: a clean filter or `core.fsmonitor` there is a
 * command of the sandbox's choosing run on the host, outside the sandbox. Callers keep host git
 * out of them (pathspec exclusions, `--ignore-submodules=all`).
 *
 * Only `git ls-files` runs here: it reads the index and lists the folder, and starts no process in
 * a nested repository. Paths are relative to the workspace, sorted.
 */
export async function findNestedRepositories(workspaceRoot: string): Promise<string[]> {
  const [staged, untracked] = await Promise.all([
    listFiles(workspaceRoot, ["--stage"]),
    listFiles(workspaceRoot, ["--others", "--exclude-standard"]),
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
    if (await pathEntryExists(path.join(workspaceRoot, candidate, ".git"))) nested.push(candidate);
  }
  return nested.sort();
}

async function listFiles(workspaceRoot: string, options: readonly string[]): Promise<string[]> {
  const stdout = await runWorkspaceGit(workspaceRoot, ["ls-files", "-z", ...options], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout.split("\0").filter((entry) => entry !== "");
}
