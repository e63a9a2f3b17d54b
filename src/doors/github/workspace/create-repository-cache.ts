import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { HostRepository } from "../../../core/git/index.js";
import { runHostGit, type HostGitOptions } from "../../../core/git/index.js";
import { bringCheckoutObjects } from "./bring-checkout-objects.js";
import { createKeyedLock } from "./create-keyed-lock.js";
import type {
  Checkout,
  CheckoutOptions,
  RepositoryCache,
  RepositoryCacheOptions,
} from "./repository-cache-types.js";
import { readCompleteCommit, writeCompleteCommit } from "./complete-commit-record.js";
import { makeTaskFolder, type TaskTarget } from "./make-task-folder.js";
import { mirrorNameOf } from "./mirror-name-of.js";
import { readMirrorHead, readMirrorRefs, type MirrorRef } from "./read-mirror-refs.js";
import { resolveCommit } from "./resolve-commit.js";
import { validateRemoteUrl } from "./validate-remote-url.js";
import { WorkspaceError, type WorkspaceErrorCode } from "./workspace-error.js";

export type {
  Checkout,
  CheckoutOptions,
  RepositoryCache,
  RepositoryCacheOptions,
} from "./repository-cache-types.js";

/**
 * Branches and tags only: a mirror of GitHub's `refs/pull/*` is thousands of refs on a busy
 * repository. A pull request's head is fetched on demand through `fetchRefs`.
 */
const MIRROR_REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];
/** Names reach git's command line: nothing that reads as an option, no spaces or control characters. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be refused
const REF_NAME_PATTERN = /^(?!-)[^\s\x00-\x1f\x7f~^:?*[\\]+$/;
const SHA_PATTERN = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i;

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * A per-repository cache of bare mirrors. A checkout fetches into the mirror (the only network
 * step), then makes a task folder from it: `git/`, the task's own git directory, which borrows
 * the mirror's objects (an alternate, so nothing is copied), and `tree/`, the work tree.
 *
 * Why this layout: the sandbox binds only `tree/` writable. The git directory, the mirror's
 * objects and the work tree's `.git` file (which names the git directory for git inside the
 * sandbox) are mounted read-only, so nothing a command does can change which config, hooks,
 * attributes programs or object stores the host's git uses afterwards: there is no git metadata
 * inside the writable area for it to create or change. The host's git names both folders
 * explicitly on every call and never reads the `.git` file.
 */
export function createRepositoryCache(options: RepositoryCacheOptions): RepositoryCache {
  const mirrorsDir = path.join(options.cacheDir, "mirrors");
  const workspacesDir = path.join(options.cacheDir, "workspaces");
  const lock = createKeyedLock();
  const hostEnv = options.hostEnv ?? process.env;

  // No `cause`: git's own error holds its arguments; the message is already token-free.
  function fail(code: WorkspaceErrorCode, what: string, error: unknown): WorkspaceError {
    return new WorkspaceError(code, `${what}: ${error instanceof Error ? error.message : String(error)}`);
  }

  function gitOptions(checkout: CheckoutOptions, extra: HostGitOptions = {}): HostGitOptions {
    return { hostEnv, ...(checkout.signal === undefined ? {} : { signal: checkout.signal }), ...extra };
  }

  function remoteOptions(checkout: CheckoutOptions): HostGitOptions {
    return gitOptions(checkout, {
      usesNetwork: true,
      authentication: { token: checkout.token, remoteUrl: checkout.cloneUrl },
    });
  }

  async function refreshMirror(checkout: CheckoutOptions, mirror: HostRepository): Promise<"cold" | "warm"> {
    if (!(await exists(path.join(mirror.gitDirectory, "HEAD")))) {
      // Clone beside the final place and rename, so a crash never leaves a half mirror that looks whole.
      await mkdir(mirrorsDir, { recursive: true });
      const partial = await mkdtemp(path.join(mirrorsDir, ".partial-"));
      try {
        // Blobless: the whole commit graph and every tree (merge bases, `git log`, pushes), and
        // blobs only as tasks need them. A remote without filter support sends everything.
        await runHostGit(null, ["clone", "--bare", "--filter=blob:none", "--", checkout.cloneUrl, partial], {
          ...remoteOptions(checkout),
          cwd: mirrorsDir,
        });
        // A bare clone has no fetch refspec; these make later fetches update branches and tags in place.
        for (const refspec of MIRROR_REFSPECS)
          await runHostGit(
            { gitDirectory: partial },
            ["config", "--add", "remote.origin.fetch", refspec],
            gitOptions(checkout),
          );
        await rename(partial, mirror.gitDirectory);
      } catch (error) {
        await rm(partial, { recursive: true, force: true });
        throw fail("CLONE_FAILED", "could not clone the repository", error);
      }
      return "cold";
    }
    try {
      await runHostGit(mirror, ["fetch", "--prune", "origin"], remoteOptions(checkout));
    } catch (error) {
      throw fail("FETCH_FAILED", "could not fetch the repository", error);
    }
    return "warm";
  }

  async function fetchExtraRefs(checkout: CheckoutOptions, mirror: HostRepository): Promise<void> {
    const refs = checkout.fetchRefs ?? [];
    if (refs.length === 0) return;
    const refspecs = refs.map((ref) => (SHA_PATTERN.test(ref) ? ref : `+${ref}:${ref}`));
    try {
      await runHostGit(mirror, ["fetch", "origin", ...refspecs], remoteOptions(checkout));
    } catch (error) {
      throw fail("FETCH_FAILED", `could not fetch ${refs.join(", ")}`, error);
    }
  }

  /** Bases that are not commits here (a `before` a force push left behind) are asked for by id, else skipped. */
  async function resolveDiffBases(
    checkout: CheckoutOptions,
    mirror: HostRepository,
    refs: ReadonlyMap<string, MirrorRef>,
  ): Promise<string[]> {
    const resolved: string[] = [];
    for (const base of checkout.diffBases ?? []) {
      let sha = await resolveCommit(mirror, refs, base, { hostEnv });
      if (sha === null && SHA_PATTERN.test(base)) {
        await fetchExtraRefs({ ...checkout, fetchRefs: [base] }, mirror).catch((error: unknown) => {
          if (!(error instanceof WorkspaceError)) throw error;
        });
        sha = await resolveCommit(mirror, refs, base, { hostEnv });
      }
      if (sha !== null) resolved.push(sha);
    }
    return resolved;
  }

  /** Everything up to the blob fetch: the refreshed mirror, the commit, and the fetch under way. */
  async function prepareTarget(
    checkout: CheckoutOptions,
    mirror: HostRepository,
    completeCommit: string | null,
  ) {
    const cacheState = await refreshMirror(checkout, mirror);
    await fetchExtraRefs(checkout, mirror);
    const [refs, mirrorHead] = await Promise.all([
      readMirrorRefs(mirror, gitOptions(checkout)),
      readMirrorHead(mirror),
    ]);
    let sha = await resolveCommit(mirror, refs, checkout.ref, { hostEnv });
    if (sha === null && SHA_PATTERN.test(checkout.ref)) {
      // A commit no branch points at any more (a force-pushed pull request head): ask for it by id.
      await fetchExtraRefs({ ...checkout, fetchRefs: [checkout.ref] }, mirror);
      sha = await resolveCommit(mirror, refs, checkout.ref, { hostEnv });
    }
    if (sha === null) throw new WorkspaceError("REF_NOT_FOUND", `no commit found for ${checkout.ref}`);
    const diffBases = await resolveDiffBases(checkout, mirror, refs);
    const objects = bringCheckoutObjects({
      mirror,
      commit: sha,
      diffBases,
      completeCommit,
      localOptions: gitOptions(checkout),
      remoteOptions: remoteOptions(checkout),
    }).catch((error: unknown) => ({
      success: false as const,
      error: error instanceof Error ? error.message : String(error),
    }));
    const remoteBranchSha =
      checkout.branch === undefined ? null : (refs.get(`refs/heads/${checkout.branch}`)?.commit ?? null);
    const target: TaskTarget = {
      sha,
      ...(checkout.branch === undefined ? {} : { branch: checkout.branch }),
      mirrorRefs: refs,
      mirrorHead,
      objectsReady: objects.then((result) => result.success),
    };
    return { cacheState, sha, remoteBranchSha, objects, target };
  }

  /**
   * On a warm mirror the task folder starts at once with the last complete commit's tree, which
   * needs no fetch, while the mirror fetches; the checkout of the task's commit then rewrites only
   * the files that differ. The task's git directory is written while the blobs travel.
   */
  async function checkoutLocked(checkout: CheckoutOptions, mirrorPath: string): Promise<Checkout> {
    const mirror: HostRepository = { gitDirectory: mirrorPath };
    const completeCommit = await readCompleteCommit(mirror);
    let settleTarget: (target: TaskTarget | null) => void = () => undefined;
    const target = new Promise<TaskTarget | null>((resolve) => (settleTarget = resolve));
    const made = makeTaskFolder({
      workspacesDir,
      mirror,
      cloneUrl: checkout.cloneUrl,
      earlyCommit: completeCommit,
      target,
      gitOptions: gitOptions(checkout),
    }).catch((error: unknown) => {
      throw fail("CHECKOUT_FAILED", `could not check out ${checkout.ref}`, error);
    });
    let prepared: Awaited<ReturnType<typeof prepareTarget>>;
    try {
      prepared = await prepareTarget(checkout, mirror, completeCommit);
    } catch (error) {
      settleTarget(null);
      // The folder removes itself once told to give up; the first failure is the one reported.
      await Promise.allSettled([made]);
      throw error;
    }
    settleTarget(prepared.target);
    const [fetched, folderResult] = await Promise.allSettled([prepared.objects, made]);
    if (fetched.status === "fulfilled" && !fetched.value.success)
      throw new WorkspaceError(
        "FETCH_FAILED",
        `could not fetch the files of ${checkout.ref}: ${fetched.value.error}`,
      );
    if (folderResult.status === "rejected") throw folderResult.reason;
    if (!folderResult.value.success)
      throw new WorkspaceError(
        "CHECKOUT_FAILED",
        `could not check out ${checkout.ref}: ${folderResult.value.error}`,
      );
    await writeCompleteCommit(mirror, prepared.sha);
    const { folder, repository } = folderResult.value;
    return {
      workspaceRoot: repository.workTree,
      repository,
      headSha: prepared.sha,
      remoteBranchSha: prepared.remoteBranchSha,
      cacheState: prepared.cacheState,
      cleanup: () => rm(folder, { recursive: true, force: true }),
    };
  }

  async function removeEntries(directory: string, shouldRemove: (name: string) => boolean): Promise<number> {
    if (!(await exists(directory))) return 0;
    const names = (await readdir(directory)).filter(shouldRemove);
    await Promise.all(names.map((name) => rm(path.join(directory, name), { recursive: true, force: true })));
    return names.length;
  }

  return {
    async removeLeftovers(): Promise<number> {
      const workspaces = await removeEntries(workspacesDir, () => true);
      const partials = await removeEntries(mirrorsDir, (name) => name.startsWith(".partial-"));
      return workspaces + partials;
    },
    async checkout(checkout: CheckoutOptions): Promise<Checkout> {
      const validation = validateRemoteUrl(checkout.cloneUrl);
      if (!validation.success) throw new WorkspaceError("INVALID_REMOTE_URL", validation.error);
      const names = [
        checkout.ref,
        ...(checkout.branch === undefined ? [] : [checkout.branch]),
        ...(checkout.fetchRefs ?? []),
        ...(checkout.diffBases ?? []),
      ];
      const badName = names.find((name) => !REF_NAME_PATTERN.test(name));
      if (badName !== undefined)
        throw new WorkspaceError("INVALID_REF", `not a usable ref name: ${JSON.stringify(badName)}`);
      if (isAborted(checkout.signal)) throw new WorkspaceError("CANCELLED", "the task was cancelled");
      const mirror = path.join(mirrorsDir, mirrorNameOf(checkout.cloneUrl));
      try {
        return await lock.run(mirror, () => checkoutLocked(checkout, mirror));
      } catch (error) {
        if (isAborted(checkout.signal)) {
          throw new WorkspaceError("CANCELLED", "the task was cancelled", { cause: error });
        }
        throw error;
      }
    },
  };
}
