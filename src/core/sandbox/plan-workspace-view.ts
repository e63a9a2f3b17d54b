import { lstat } from "node:fs/promises";
import path from "node:path";

/** What a sandbox shows of the workspace it runs in. */
export interface WorkspaceView {
  /** Real path of the workspace root. */
  readonly root: string;
  /** `read-only` for plan mode, reviewers and subagents: the kernel refuses every write there. */
  readonly access: "read-write" | "read-only";
  /**
   * Mounted read-only after the workspace: its git metadata. Inside the workspace they are mount
   * points, which a command can neither write, rename nor remove; outside it they are the only
   * host folders beside the workspace the command can see at all.
   */
  readonly readOnlyPaths: readonly string[];
}

export interface PlanWorkspaceViewOptions {
  readonly readOnlyPaths?: readonly string[];
  readonly readOnlyWorkspace?: boolean;
}

type EntryKind = "directory" | "file" | "other" | "missing";

async function entryKind(target: string): Promise<EntryKind> {
  try {
    const stats = await lstat(target);
    if (stats.isDirectory()) return "directory";
    if (stats.isFile()) return "file";
    return "other";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "missing";
    throw error;
  }
}

/**
 * The workspace's own `.git` is always shown read-only, listed or not: a folder (a checkout made
 * by a person) or a file naming the git directory (the App's and eval's checkouts, whose git
 * directory lives outside). A symbolic link there is not a git directory the host made; it is
 * not followed. Paths the caller names are the host's (a checkout's git directory and object
 * store); a missing one, a link or anything but a file or folder is left out.
 */
export async function planWorkspaceView(
  root: string,
  options: PlanWorkspaceViewOptions = {},
): Promise<WorkspaceView> {
  const candidates = [path.join(root, ".git"), ...(options.readOnlyPaths ?? [])].map((entry) =>
    path.resolve(entry),
  );
  const kept: string[] = [];
  for (const candidate of [...new Set(candidates)]) {
    const kind = await entryKind(candidate);
    if (kind === "directory" || kind === "file") kept.push(candidate);
  }
  // Shallow first: bwrap applies mounts in order, and a deeper bind must land on top.
  kept.sort(
    (left, right) => left.split(path.sep).length - right.split(path.sep).length || left.localeCompare(right),
  );
  return {
    root,
    access: options.readOnlyWorkspace === true ? "read-only" : "read-write",
    readOnlyPaths: kept,
  };
}
