import { lstat, mkdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { pathEntryExists } from "./path-entry-exists.js";

/** Mount instructions that keep a checkout's git metadata from running code on the host later. */
export interface GitProtection {
  /** Git directories bound onto themselves: a mount point cannot be renamed, so `.git` cannot be swapped. */
  readonly pinnedDirectories: readonly string[];
  /** Files and folders re-bound read-only: `config` and `hooks` decide what the host's git executes. */
  readonly readOnlyPaths: readonly string[];
  /** Why a git directory was left out, for the trace and doctor. */
  readonly notes: readonly string[];
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** `.git` as a file (worktree, submodule) holds `gitdir: <path>`. */
async function readGitFilePointer(gitFile: string): Promise<string | undefined> {
  const text = await readFile(gitFile, "utf8");
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match?.[1]) return undefined;
  return path.resolve(path.dirname(gitFile), match[1]);
}

/**
 * Finds the git directories of a workspace that the sandbox can reach and lists what to protect.
 * A git directory outside the workspace is not mounted at all, so it is out of reach already.
 * Missing `hooks` folders are created on the host first: a read-only bind needs a source, and a
 * missing folder would otherwise be created, writable, by the command.
 */
export async function findGitProtection(workspaceRoot: string): Promise<GitProtection> {
  const root = await realpath(workspaceRoot);
  const dotGit = path.join(root, ".git");
  if (!(await pathEntryExists(dotGit))) return { pinnedDirectories: [], readOnlyPaths: [], notes: [] };

  const notes: string[] = [];
  const gitDirectories: string[] = [];
  const stats = await lstat(dotGit);
  if (stats.isDirectory()) {
    gitDirectories.push(dotGit);
  } else if (stats.isFile()) {
    const pointed = await readGitFilePointer(dotGit);
    if (pointed === undefined) notes.push(".git is a file without a gitdir line; nothing to protect.");
    else gitDirectories.push(...(await withCommonDirectory(pointed)));
  } else {
    notes.push(".git is neither a folder nor a file; nothing to protect.");
  }

  const pinnedDirectories: string[] = [];
  const readOnlyPaths: string[] = [];
  for (const gitDirectory of gitDirectories) {
    const real = await realpath(gitDirectory).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (real === undefined) {
      notes.push(`${gitDirectory} does not exist.`);
      continue;
    }
    if (!isInside(root, real)) {
      notes.push(`${real} is outside the workspace and is not mounted in the sandbox.`);
      continue;
    }
    pinnedDirectories.push(real);
    await mkdir(path.join(real, "hooks"), { recursive: true });
    readOnlyPaths.push(path.join(real, "hooks"));
    for (const name of ["config", "config.worktree", "commondir", "gitdir"]) {
      const candidate = path.join(real, name);
      if (await pathEntryExists(candidate)) readOnlyPaths.push(candidate);
    }
  }
  return {
    pinnedDirectories: [...new Set(pinnedDirectories)],
    readOnlyPaths: [...new Set(readOnlyPaths)],
    notes,
  };
}

/** A linked worktree's gitdir names the shared repository in `commondir`; both need protecting. */
async function withCommonDirectory(gitDirectory: string): Promise<string[]> {
  const commondirFile = path.join(gitDirectory, "commondir");
  if (!(await pathEntryExists(commondirFile))) return [gitDirectory];
  const pointer = (await readFile(commondirFile, "utf8")).trim();
  return [gitDirectory, path.resolve(gitDirectory, pointer)];
}
