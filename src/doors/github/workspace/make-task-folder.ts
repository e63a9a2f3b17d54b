import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";
import type { WorkspaceRepository } from "../../../core/git/index.js";

export interface TaskFolderOptions {
  readonly workspacesDir: string;
  readonly mirror: HostRepository;
  /** Stored as the task's `origin`; never carries a credential. */
  readonly cloneUrl: string;
  readonly sha: string;
  /** Create (or reset) this branch at `sha`; without it HEAD is detached. */
  readonly branch?: string;
  readonly gitOptions: HostGitOptions;
}

/**
 * A task folder from the mirror: `git/`, the task's own git directory, which borrows the
 * mirror's objects (`--shared`, so nothing is copied), and `tree/`, the work tree. No network:
 * the mirror already holds every object the checkout reads. The task's git directory is not a
 * partial clone, so git there never fetches a missing object; it fails at once.
 *
 * Removes what it made when a step fails, and throws git's error.
 */
export async function makeTaskFolder(
  options: TaskFolderOptions,
): Promise<{ readonly folder: string; readonly repository: WorkspaceRepository }> {
  await mkdir(options.workspacesDir, { recursive: true });
  const folder = await mkdtemp(path.join(options.workspacesDir, "task-"));
  const gitDirectory = path.join(folder, "git");
  const workTree = path.join(folder, "tree");
  try {
    await runHostGit(
      null,
      [
        "clone",
        "--shared",
        "--no-checkout",
        `--separate-git-dir=${gitDirectory}`,
        "--",
        options.mirror.gitDirectory,
        workTree,
      ],
      { ...options.gitOptions, cwd: folder },
    );
    const repository: WorkspaceRepository = {
      gitDirectory,
      workTree,
      sandboxReadOnlyPaths: [
        gitDirectory,
        path.join(options.mirror.gitDirectory, "objects"),
        path.join(workTree, ".git"),
      ],
    };
    await runHostGit(repository, ["remote", "set-url", "origin", options.cloneUrl], options.gitOptions);
    const target =
      options.branch === undefined ? ["--detach", options.sha] : ["-B", options.branch, options.sha];
    await runHostGit(repository, ["checkout", "--quiet", ...target], options.gitOptions);
    return { folder, repository };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
