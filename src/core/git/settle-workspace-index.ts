import { stat } from "node:fs/promises";
import path from "node:path";
import { isHostGitError } from "./host-git-error.js";
import { runHostGit } from "./run-host-git.js";
import type { HostRepository } from "./host-repository.js";

/**
 * Makes the index cheap for git inside the sandbox, which sees it read-only and so can never save
 * what it learns. Two things would make it read every file again on every `git status` or `git
 * diff`: entries written in the same second as the index ("racily clean": their times cannot
 * prove them unchanged), and the owner the index recorded, which inside the sandbox differs (the
 * sandbox's git compares with `core.checkStat=minimal`, see sandbox-environment.ts). Once the
 * second the index was written in has passed, the host writes it again: then every entry is
 * provably clean. Waits at most a second, once per task; nothing of the work tree is changed.
 */
export async function settleWorkspaceIndex(
  repository: HostRepository & { readonly workTree: string },
  options: { readonly signal?: AbortSignal; readonly now?: () => number } = {},
): Promise<void> {
  const now = options.now ?? Date.now;
  const indexMs = (await stat(path.join(repository.gitDirectory, "index"))).mtimeMs;
  const wait = Math.ceil(indexMs / 1000) * 1000 + 50 - now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  await runHostGit(repository, ["update-index", "-q", "--refresh", "--force-write-index"], {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  }).catch((error: unknown) => {
    // `--refresh` exits 1 when files differ from the index: that is a fact, not a failure.
    if (isHostGitError(error) && error.code === "GIT_FAILED" && error.exitCode === 1) return;
    throw error;
  });
}
