import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";
import type { WorkspaceRepository } from "../../../core/git/index.js";
import type { MirrorRef } from "./read-mirror-refs.js";
import { writeTaskGitDirectory } from "./write-task-git-directory.js";

export interface TaskFolderOptions {
  readonly workspacesDir: string;
  readonly mirror: HostRepository;
  readonly mirrorRefs: ReadonlyMap<string, MirrorRef>;
  readonly mirrorHead: string | null;
  /** Stored as the task's `origin`; never carries a credential. */
  readonly cloneUrl: string;
  readonly sha: string;
  /** Create (or reset) this branch at `sha`; without it HEAD is detached. */
  readonly branch?: string;
  /**
   * Settles when the mirror holds every blob of `sha`'s tree (the blob fetch): the git directory
   * is written meanwhile, and only the checkout waits. Rejects, or resolves false, to give up.
   */
  readonly objectsReady: Promise<boolean>;
  readonly gitOptions: HostGitOptions;
  /**
   * A spare folder (see `spare-tree.ts`) already moved to its place under `workspacesDir`: its
   * work tree and index stand at `headSha`, so the checkout writes only the files that differ.
   */
  readonly reuse?: { readonly folder: string; readonly headSha: string };
}

export type TaskFolderResult =
  | { readonly success: true; readonly folder: string; readonly repository: WorkspaceRepository }
  | { readonly success: false; readonly error: string };

/**
 * A task folder from the mirror: `git/`, the task's own git directory, which borrows the
 * mirror's objects (an alternate, so nothing is copied), and `tree/`, the work tree. No network:
 * the mirror already holds every object the checkout reads. The task's git directory is not a
 * partial clone, so git there never fetches a missing object; it fails at once. One git process
 * (the checkout); the rest is written while the blobs are on their way.
 *
 * Removes what it made when a step fails; throws git's error.
 */
export async function makeTaskFolder(options: TaskFolderOptions): Promise<TaskFolderResult> {
  await mkdir(options.workspacesDir, { recursive: true });
  const folder = options.reuse?.folder ?? (await mkdtemp(path.join(options.workspacesDir, "task-")));
  const gitDirectory = path.join(folder, "git");
  const workTree = path.join(folder, "tree");
  try {
    // A spare's reflog tells of its own checkout, and its refs are rewritten from the mirror's.
    if (options.reuse !== undefined)
      await Promise.all(
        ["logs", "refs"].map((name) => rm(path.join(gitDirectory, name), { recursive: true, force: true })),
      );
    const written = await writeTaskGitDirectory({
      gitDirectory,
      workTree,
      mirrorObjects: path.join(options.mirror.gitDirectory, "objects"),
      cloneUrl: options.cloneUrl,
      // A reused index stands at the spare's commit: HEAD must too, or the checkout would keep
      // the difference as if it were a change made in the work tree.
      sha: options.reuse?.headSha ?? options.sha,
      mirrorRefs: options.mirrorRefs,
      mirrorHead: options.mirrorHead,
    });
    if (!written.success || !(await options.objectsReady)) {
      await rm(folder, { recursive: true, force: true });
      return {
        success: false,
        error: written.success ? "the checkout's objects did not arrive" : written.error,
      };
    }
    const repository: WorkspaceRepository = {
      gitDirectory,
      workTree,
      sandboxReadOnlyPaths: [
        gitDirectory,
        path.join(options.mirror.gitDirectory, "objects"),
        path.join(workTree, ".git"),
      ],
    };
    const target =
      options.branch === undefined ? ["--detach", options.sha] : ["-B", options.branch, options.sha];
    await runHostGit(repository, ["checkout", "--quiet", ...target], options.gitOptions);
    return { success: true, folder, repository };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
