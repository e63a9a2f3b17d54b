import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";
import type { WorkspaceRepository } from "../../../core/git/index.js";
import type { MirrorRef } from "./read-mirror-refs.js";
import { writeTaskGitDirectory } from "./write-task-git-directory.js";
import { writeTaskRefs } from "./write-task-refs.js";

/** What the checkout writes, known once the mirror is refreshed. */
export interface TaskTarget {
  readonly sha: string;
  /** Create (or reset) this branch at `sha`; without it HEAD is detached. */
  readonly branch?: string;
  readonly mirrorRefs: ReadonlyMap<string, MirrorRef>;
  readonly mirrorHead: string | null;
  /** Settles true when the mirror holds every blob of `sha`'s tree (the blob fetch). */
  readonly objectsReady: Promise<boolean>;
}

export interface TaskFolderOptions {
  readonly workspacesDir: string;
  readonly mirror: HostRepository;
  /** Stored as the task's `origin`; never carries a credential. */
  readonly cloneUrl: string;
  /**
   * A commit whose every blob the mirror holds already (the last complete one), or null. Given,
   * its tree is written at once, while the mirror fetches; the target's checkout then changes
   * only the files that differ.
   */
  readonly earlyCommit: string | null;
  /** Resolves once the ref is resolved and the blob fetch started; null when the checkout gave up. */
  readonly target: Promise<TaskTarget | null>;
  readonly gitOptions: HostGitOptions;
}

export type TaskFolderResult =
  | { readonly success: true; readonly folder: string; readonly repository: WorkspaceRepository }
  | { readonly success: false; readonly error: string };

/**
 * A task folder from the mirror: `git/`, the task's own git directory, which borrows the
 * mirror's objects (an alternate, so nothing is copied), and `tree/`, the work tree. No network:
 * git here only reads objects the mirror already holds. The task's git directory is not a
 * partial clone, so git there never fetches a missing object; it fails at once.
 *
 * Removes what it made when a step fails; throws git's error.
 */
export async function makeTaskFolder(options: TaskFolderOptions): Promise<TaskFolderResult> {
  await mkdir(options.workspacesDir, { recursive: true });
  const folder = await mkdtemp(path.join(options.workspacesDir, "task-"));
  const gitDirectory = path.join(folder, "git");
  const workTree = path.join(folder, "tree");
  const repository: WorkspaceRepository = {
    gitDirectory,
    workTree,
    sandboxReadOnlyPaths: [
      gitDirectory,
      path.join(options.mirror.gitDirectory, "objects"),
      path.join(workTree, ".git"),
    ],
  };
  const checkout = (target: readonly string[]): Promise<unknown> =>
    runHostGit(repository, ["checkout", "--quiet", ...target], options.gitOptions);
  const giveUp = async (error: string): Promise<TaskFolderResult> => {
    await rm(folder, { recursive: true, force: true });
    return { success: false, error };
  };
  try {
    const early = options.earlyCommit;
    const written = await writeTaskGitDirectory({
      gitDirectory,
      workTree,
      mirrorObjects: path.join(options.mirror.gitDirectory, "objects"),
      cloneUrl: options.cloneUrl,
      sha: early ?? (await options.target)?.sha ?? "",
    });
    if (!written.success) return await giveUp(written.error);
    // Never rejects: a failed early tree is written again from nothing below.
    const earlyWritten =
      early === null
        ? Promise.resolve(false)
        : checkout(["--detach", early]).then(
            () => true,
            () => false,
          );
    const target = await options.target;
    const objectsArrived = target === null ? false : await target.objectsReady;
    const isEarlyTreeWritten = await earlyWritten;
    if (target === null || !objectsArrived) return await giveUp("the checkout's objects did not arrive");
    if (early !== null && !isEarlyTreeWritten) {
      await rm(folder, { recursive: true, force: true });
      return await makeTaskFolder({ ...options, earlyCommit: null });
    }
    await writeTaskRefs(gitDirectory, target.mirrorRefs, target.mirrorHead);
    await checkout(
      target.branch === undefined ? ["--detach", target.sha] : ["-B", target.branch, target.sha],
    );
    return { success: true, folder, repository };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
