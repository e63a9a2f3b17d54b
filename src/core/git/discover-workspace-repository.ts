import { lstat, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import type { WorkspaceRepository } from "./workspace-repository.js";

export type DiscoveredRepository =
  | { readonly kind: "repository"; readonly repository: WorkspaceRepository }
  /** No `.git` at the root, or one the host will not take for the work tree's git directory. */
  | { readonly kind: "none"; readonly reason: string };

async function readOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw error;
  }
}

async function realOrUndefined(target: string): Promise<string | undefined> {
  try {
    return await realpath(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** Object stores a git directory borrows (`objects/info/alternates`), which in-sandbox git must read too. */
async function alternateStores(gitDirectory: string): Promise<string[]> {
  const listed = await readOrUndefined(path.join(gitDirectory, "objects", "info", "alternates"));
  const stores: string[] = [];
  for (const line of (listed ?? "").split("\n").map((entry) => entry.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const real = await realOrUndefined(path.resolve(path.join(gitDirectory, "objects"), line));
    if (real !== undefined) stores.push(real);
  }
  return stores;
}

/**
 * The repository of a checkout a person made (the CLI's `--cwd`), read once, before any command
 * of the run: a `.git` folder at the root, or a `.git` file naming a linked worktree's or a
 * submodule's git directory. A file is only followed when git's own back-link, which lives in the
 * git directory and not in the work tree, names this work tree: a `.git` file a command wrote
 * cannot make the host (or the sandbox) read a folder of its choosing.
 */
export async function discoverWorkspaceRepository(workTree: string): Promise<DiscoveredRepository> {
  const root = await realpath(workTree);
  const dotGit = path.join(root, ".git");
  const entry = await lstat(dotGit).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
  if (entry === undefined) return { kind: "none", reason: `${root} has no .git` };
  if (entry.isDirectory()) {
    return {
      kind: "repository",
      repository: {
        gitDirectory: dotGit,
        workTree: root,
        sandboxReadOnlyPaths: [dotGit, ...(await alternateStores(dotGit))],
      },
    };
  }
  if (!entry.isFile()) return { kind: "none", reason: `${dotGit} is neither a folder nor a file` };
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec((await readOrUndefined(dotGit)) ?? "")?.[1];
  if (pointer === undefined) return { kind: "none", reason: `${dotGit} names no git directory` };
  const gitDirectory = await realOrUndefined(path.resolve(root, pointer));
  if (gitDirectory === undefined)
    return { kind: "none", reason: `${dotGit} names a git directory that does not exist` };
  if (!(await linksBack(gitDirectory, dotGit, root)))
    return {
      kind: "none",
      reason: `${dotGit} names ${gitDirectory}, whose own records do not name this work tree`,
    };
  const commonPointer = (await readOrUndefined(path.join(gitDirectory, "commondir")))?.trim();
  const common =
    commonPointer === undefined || commonPointer === ""
      ? undefined
      : await realOrUndefined(path.resolve(gitDirectory, commonPointer));
  const stores = await alternateStores(common ?? gitDirectory);
  return {
    kind: "repository",
    repository: {
      gitDirectory,
      workTree: root,
      sandboxReadOnlyPaths: [...new Set([dotGit, gitDirectory, ...(common ? [common] : []), ...stores])],
    },
  };
}

/**
 * A linked worktree's git directory holds `gitdir`, the path of the worktree's `.git` file; a
 * submodule's holds `core.worktree` in its config. Either must lead back to this work tree.
 */
async function linksBack(gitDirectory: string, dotGit: string, root: string): Promise<boolean> {
  const backLink = (await readOrUndefined(path.join(gitDirectory, "gitdir")))?.trim();
  if (backLink !== undefined && backLink !== "") {
    const target = await realOrUndefined(path.resolve(gitDirectory, backLink));
    if (target === dotGit) return true;
  }
  const config = (await readOrUndefined(path.join(gitDirectory, "config"))) ?? "";
  const worktree = /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
  if (worktree === undefined) return false;
  return (await realOrUndefined(path.resolve(gitDirectory, worktree))) === root;
}
