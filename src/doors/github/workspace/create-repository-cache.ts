import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { HostRepository } from "../../../core/git/index.js";
import { runHostGit, type HostGitOptions } from "../../../core/git/index.js";
import type { WorkspaceRepository } from "../../../core/git/index.js";
import { bringCheckoutObjects } from "./bring-checkout-objects.js";
import { createKeyedLock } from "./create-keyed-lock.js";
import { readCompleteCommit, writeCompleteCommit } from "./complete-commit-record.js";
import { makeTaskFolder } from "./make-task-folder.js";
import { mirrorNameOf } from "./mirror-name-of.js";
import { readMirrorHead, readMirrorRefs, type MirrorRef } from "./read-mirror-refs.js";
import { resolveCommit } from "./resolve-commit.js";
import { claimSpareTree, makeSpareTree, sparesDirOf } from "./spare-tree.js";
import { validateRemoteUrl } from "./validate-remote-url.js";
import { WorkspaceError, type WorkspaceErrorCode } from "./workspace-error.js";

export interface CheckoutOptions {
  /** The payload's `clone_url`; stored as is, it never carries a credential. */
  readonly cloneUrl: string;
  /** Installation token, handed to the git processes that talk to the remote and to no other. */
  readonly token: string;
  /** A branch, tag, full ref or commit sha to check out. */
  readonly ref: string;
  /** Create (or reset) this work branch at `ref`; without it the workspace has a detached HEAD. */
  readonly branch?: string;
  /** Extra refs to bring into the cache first, e.g. `refs/pull/12/head` for a pull request from a fork. */
  readonly fetchRefs?: readonly string[];
  /**
   * Commits (or refs) the caller will diff the checkout against, such as a pull request's base and
   * a push's `before`: the blobs that diff reads are brought with the checkout's own. The mirror
   * holds every commit and tree but only the blobs tasks needed, and a task folder never fetches.
   */
  readonly diffBases?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface Checkout {
  /** The work tree: the only folder sandboxed commands may write. */
  readonly workspaceRoot: string;
  /** Its git directory beside it, out of every sandbox's reach, and what sandboxes show read-only. */
  readonly repository: WorkspaceRepository;
  readonly headSha: string;
  /** Where `branch` stood on the remote when the cache was refreshed, or null if it did not exist. */
  readonly remoteBranchSha: string | null;
  /** "cold" when this call cloned the repository, "warm" when it only fetched. */
  readonly cacheState: "cold" | "warm";
  /** "spare" when a spare tree was checked out over (only the files that differ were written). */
  readonly treeSource: "spare" | "written";
  /** Removes the work tree and its git directory; the cache stays for the next task. */
  cleanup(): Promise<void>;
}

export interface RepositoryCache {
  checkout(options: CheckoutOptions): Promise<Checkout>;
  /**
   * Removes workspaces and half-made mirrors a killed process left behind; returns how many.
   * Call it at start-up, before any task runs, and only where no other process shares the cache.
   */
  removeLeftovers(): Promise<number>;
  /** Resolves once the spare trees being written have been written (or given up). */
  settled(): Promise<void>;
  /**
   * For a stopping App: ends the spare trees being written (their git processes are killed, the
   * half-made folders removed) and resolves once they have ended; no spare is written after it.
   * Checkouts still work. Waiting for a spare would hold a stop for about one tree's write.
   */
  close(): Promise<void>;
}

export interface RepositoryCacheOptions {
  /** Holds `mirrors/` (one bare repository per remote) and `workspaces/`. Private to the App. */
  readonly cacheDir: string;
  readonly hostEnv?: NodeJS.ProcessEnv;
  /**
   * How many repositories keep a spare work tree (see `spare-tree.ts`), written after a task ends
   * so that the next checkout writes only what changed; 0 (the default) keeps none. Each costs
   * one work tree of disk.
   */
  readonly spareTrees?: number;
}

/**
 * Branches and tags only: a mirror of GitHub's `refs/pull/*` is thousands of refs on a busy
 * repository. A pull request's head is fetched on demand through `fetchRefs`.
 */
const MIRROR_REFSPECS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"];
/** Names reach git's command line: nothing that reads as an option, no spaces or control characters. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be refused
const REF_NAME_PATTERN = /^(?!-)[^\s\x00-\x1f\x7f~^:?*[\\]+$/;
const SHA_PATTERN = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i;
/** Blobs of new commits at least this large wait for a task that reads them. */
const REFRESH_BLOB_LIMIT = "1m";

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
  const sparesDir = sparesDirOf(options.cacheDir);
  const spareTrees = options.spareTrees ?? 0;
  const lock = createKeyedLock();
  const hostEnv = options.hostEnv ?? process.env;
  const sparesUnderWay = new Set<Promise<unknown>>();
  const sparesStop = new AbortController();

  /** After a task: a spare at the mirror's newest complete commit, off every task's path. */
  function writeSpareLater(mirrorPath: string, cloneUrl: string): void {
    if (spareTrees <= 0 || sparesStop.signal.aborted) return;
    // One spare at a time per repository; the mirror's own lock only for moving it into place.
    const written = lock
      .run(`${mirrorPath}#spare`, () =>
        makeSpareTree({
          sparesDir,
          mirror: { gitDirectory: mirrorPath },
          gitOptions: { hostEnv },
          cloneUrl,
          keep: spareTrees,
          underMirrorLock: (action) => lock.run(mirrorPath, action),
          signal: sparesStop.signal,
        }),
      )
      // A spare only saves time: one that cannot be written (the cache removed, a full disk) is skipped.
      .catch(() => false)
      .finally(() => sparesUnderWay.delete(written));
    sparesUnderWay.add(written);
  }

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
      // The new commits come with their blobs (all but very large ones) in this one round trip,
      // so a checkout after a push needs no second fetch. The mirror's own filter stays blob:none.
      await runHostGit(
        mirror,
        ["fetch", "--prune", `--filter=blob:limit=${REFRESH_BLOB_LIMIT}`, "origin"],
        remoteOptions(checkout),
      );
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

  async function checkoutLocked(checkout: CheckoutOptions, mirrorPath: string): Promise<Checkout> {
    const mirror: HostRepository = { gitDirectory: mirrorPath };
    const cacheState = await refreshMirror(checkout, mirror);
    await fetchExtraRefs(checkout, mirror);
    const [refs, mirrorHead, completeCommit] = await Promise.all([
      readMirrorRefs(mirror, gitOptions(checkout)),
      readMirrorHead(mirror),
      readCompleteCommit(mirror),
    ]);
    let sha = await resolveCommit(mirror, refs, checkout.ref, { hostEnv });
    if (sha === null && SHA_PATTERN.test(checkout.ref)) {
      // A commit no branch points at any more (a force-pushed pull request head): ask for it by id.
      await fetchExtraRefs({ ...checkout, fetchRefs: [checkout.ref] }, mirror);
      sha = await resolveCommit(mirror, refs, checkout.ref, { hostEnv });
    }
    if (sha === null) throw new WorkspaceError("REF_NOT_FOUND", `no commit found for ${checkout.ref}`);
    const diffBases = await resolveDiffBases(checkout, mirror, refs);
    // The blobs travel while the task's git directory is written; only the checkout waits for them.
    const objects = bringCheckoutObjects({
      mirror,
      commit: sha,
      diffBases,
      completeCommit,
      freshMirror: cacheState === "cold",
      localOptions: gitOptions(checkout),
      remoteOptions: remoteOptions(checkout),
    }).catch((error: unknown) => ({
      success: false as const,
      error: error instanceof Error ? error.message : String(error),
    }));
    const remoteBranchSha =
      checkout.branch === undefined ? null : (refs.get(`refs/heads/${checkout.branch}`)?.commit ?? null);
    const spare =
      spareTrees > 0
        ? await claimSpareTree({ sparesDir, mirror, workspacesDir, gitOptions: gitOptions(checkout) })
        : null;
    const folderOptions = {
      workspacesDir,
      mirror,
      mirrorRefs: refs,
      mirrorHead,
      cloneUrl: checkout.cloneUrl,
      sha,
      ...(checkout.branch === undefined ? {} : { branch: checkout.branch }),
      objectsReady: objects.then((result) => result.success),
      gitOptions: gitOptions(checkout),
    };
    const made = (async () => {
      if (spare !== null) {
        // A spare that cannot be checked out over is removed, and the tree written whole.
        const reused = await makeTaskFolder({ ...folderOptions, reuse: spare }).catch(() => null);
        if (reused?.success === true) return { ...reused, treeSource: "spare" as const };
      }
      return { ...(await makeTaskFolder(folderOptions)), treeSource: "written" as const };
    })().catch((error: unknown) => {
      throw fail("CHECKOUT_FAILED", `could not check out ${checkout.ref}`, error);
    });
    const [objectsResult, folderResult] = await Promise.allSettled([objects, made]);
    const fetched = objectsResult.status === "fulfilled" ? objectsResult.value : null;
    if (fetched !== null && !fetched.success)
      throw new WorkspaceError(
        "FETCH_FAILED",
        `could not fetch the files of ${checkout.ref}: ${fetched.error}`,
      );
    if (folderResult.status === "rejected") throw folderResult.reason;
    if (!folderResult.value.success)
      throw new WorkspaceError(
        "CHECKOUT_FAILED",
        `could not check out ${checkout.ref}: ${folderResult.value.error}`,
      );
    await writeCompleteCommit(mirror, sha);
    const { folder, repository, treeSource } = folderResult.value;
    return {
      workspaceRoot: repository.workTree,
      repository,
      headSha: sha,
      remoteBranchSha,
      cacheState,
      treeSource,
      cleanup: async () => {
        await rm(folder, { recursive: true, force: true });
        writeSpareLater(mirrorPath, checkout.cloneUrl);
      },
    };
  }

  async function settled(): Promise<void> {
    while (sparesUnderWay.size > 0) await Promise.all([...sparesUnderWay]);
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
      const spares = await removeEntries(sparesDir, () => true);
      return workspaces + partials + spares;
    },
    settled,
    async close(): Promise<void> {
      sparesStop.abort();
      await settled();
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
