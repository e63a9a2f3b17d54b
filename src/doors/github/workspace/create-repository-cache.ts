import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { GitError } from "simple-git";
import { createGit } from "./create-git.js";
import { createKeyedLock } from "./create-keyed-lock.js";
import { validateRemoteUrl } from "./validate-remote-url.js";
import { describeGitFailure } from "./redact-token.js";
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
  readonly signal?: AbortSignal;
}

export interface Checkout {
  readonly workspaceRoot: string;
  readonly headSha: string;
  /** Where `branch` stood on the remote when the cache was refreshed, or null if it did not exist. */
  readonly remoteBranchSha: string | null;
  /** "cold" when this call cloned the repository, "warm" when it only fetched. */
  readonly cacheState: "cold" | "warm";
  /** Removes the workspace; the cache stays for the next task. */
  cleanup(): Promise<void>;
}

export interface RepositoryCache {
  checkout(options: CheckoutOptions): Promise<Checkout>;
  /**
   * Removes workspaces and half-made mirrors a killed process left behind; returns how many.
   * Call it at start-up, before any task runs, and only where no other process shares the cache.
   */
  removeLeftovers(): Promise<number>;
}

export interface RepositoryCacheOptions {
  /** Holds `mirrors/` (one bare repository per remote) and `workspaces/`. Private to the App. */
  readonly cacheDir: string;
  readonly hostEnv?: NodeJS.ProcessEnv;
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

function mirrorNameOf(cloneUrl: string): string {
  const readable = cloneUrl
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(-60);
  const digest = createHash("sha256").update(cloneUrl).digest("hex").slice(0, 12);
  return `${readable}-${digest}.git`;
}

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
 * step), then makes the workspace with `git clone --local --no-hardlinks` from it.
 *
 * Why a copy and not a worktree or `--shared`: the sandbox binds only the workspace, so a
 * worktree's `.git` file or an `alternates` entry pointing into the cache would leave git inside
 * the sandbox without its objects; and hard-linked object files would let a sandboxed command
 * rewrite objects the next task reads. A local copy needs no network and no pack negotiation,
 * and leaves the workspace self-contained.
 */
export function createRepositoryCache(options: RepositoryCacheOptions): RepositoryCache {
  const mirrorsDir = path.join(options.cacheDir, "mirrors");
  const workspacesDir = path.join(options.cacheDir, "workspaces");
  const lock = createKeyedLock();
  const hostEnv = options.hostEnv ?? process.env;

  // No `cause`: git's own error object holds its output unredacted.
  function fail(code: WorkspaceErrorCode, what: string, error: unknown, token: string): WorkspaceError {
    return new WorkspaceError(code, `${what}: ${describeGitFailure(error, token)}`);
  }

  async function refreshMirror(checkout: CheckoutOptions, mirror: string): Promise<"cold" | "warm"> {
    const authentication = { token: checkout.token, remoteUrl: checkout.cloneUrl };
    const signal = checkout.signal;
    const common = { hostEnv, authentication, ...(signal === undefined ? {} : { signal }) };
    if (!(await exists(path.join(mirror, "HEAD")))) {
      // Clone beside the final place and rename, so a crash never leaves a half mirror that looks whole.
      await mkdir(mirrorsDir, { recursive: true });
      const partial = await mkdtemp(path.join(mirrorsDir, ".partial-"));
      try {
        await createGit({ ...common, baseDirectory: mirrorsDir }).raw([
          "clone",
          "--bare",
          checkout.cloneUrl,
          partial,
        ]);
        // A bare clone has no fetch refspec; these make later fetches update branches and tags in place.
        const local = createGit({ hostEnv, baseDirectory: partial });
        for (const refspec of MIRROR_REFSPECS)
          await local.raw(["config", "--add", "remote.origin.fetch", refspec]);
        await rename(partial, mirror);
      } catch (error) {
        await rm(partial, { recursive: true, force: true });
        throw fail("CLONE_FAILED", "could not clone the repository", error, checkout.token);
      }
      return "cold";
    }
    try {
      await createGit({ ...common, baseDirectory: mirror }).raw(["fetch", "--prune", "origin"]);
    } catch (error) {
      throw fail("FETCH_FAILED", "could not fetch the repository", error, checkout.token);
    }
    return "warm";
  }

  async function fetchExtraRefs(checkout: CheckoutOptions, mirror: string): Promise<void> {
    const refs = checkout.fetchRefs ?? [];
    if (refs.length === 0) return;
    const git = createGit({
      hostEnv,
      baseDirectory: mirror,
      authentication: { token: checkout.token, remoteUrl: checkout.cloneUrl },
      ...(checkout.signal === undefined ? {} : { signal: checkout.signal }),
    });
    const refspecs = refs.map((ref) => (SHA_PATTERN.test(ref) ? ref : `+${ref}:${ref}`));
    try {
      await git.raw(["fetch", "origin", ...refspecs]);
    } catch (error) {
      throw fail("FETCH_FAILED", `could not fetch ${refs.join(", ")}`, error, checkout.token);
    }
  }

  async function resolveCommit(mirror: string, ref: string): Promise<string | null> {
    const git = createGit({ hostEnv, baseDirectory: mirror });
    const candidates =
      ref.startsWith("refs/") || SHA_PATTERN.test(ref)
        ? [ref]
        : [`refs/heads/${ref}`, `refs/tags/${ref}`, ref];
    for (const candidate of candidates) {
      const output = await git
        .raw(["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`])
        .catch((error: unknown) => {
          // `--verify --quiet` exits non-zero with no output when the name does not resolve.
          if (error instanceof GitError) return "";
          throw error;
        });
      if (output.trim().length > 0) return output.trim();
    }
    return null;
  }

  async function makeWorkspace(checkout: CheckoutOptions, mirror: string, sha: string): Promise<string> {
    await mkdir(workspacesDir, { recursive: true });
    const workspaceRoot = await mkdtemp(path.join(workspacesDir, "task-"));
    const signal = checkout.signal === undefined ? {} : { signal: checkout.signal };
    try {
      await createGit({ hostEnv, baseDirectory: workspacesDir, ...signal }).raw([
        "clone",
        "--local",
        "--no-hardlinks",
        "--no-checkout",
        mirror,
        workspaceRoot,
      ]);
      const git = createGit({ hostEnv, baseDirectory: workspaceRoot, ...signal });
      await git.raw(["remote", "set-url", "origin", checkout.cloneUrl]);
      if (checkout.branch === undefined) await git.raw(["checkout", "--detach", sha]);
      else await git.raw(["checkout", "-B", checkout.branch, sha]);
      return workspaceRoot;
    } catch (error) {
      await rm(workspaceRoot, { recursive: true, force: true });
      throw fail("CHECKOUT_FAILED", `could not check out ${checkout.ref}`, error, checkout.token);
    }
  }

  async function checkoutLocked(checkout: CheckoutOptions, mirror: string): Promise<Checkout> {
    const cacheState = await refreshMirror(checkout, mirror);
    await fetchExtraRefs(checkout, mirror);
    let sha = await resolveCommit(mirror, checkout.ref);
    if (sha === null && SHA_PATTERN.test(checkout.ref)) {
      // A commit no branch points at any more (a force-pushed pull request head): ask for it by id.
      await fetchExtraRefs({ ...checkout, fetchRefs: [checkout.ref] }, mirror);
      sha = await resolveCommit(mirror, checkout.ref);
    }
    if (sha === null) throw new WorkspaceError("REF_NOT_FOUND", `no commit found for ${checkout.ref}`);
    const remoteBranchSha =
      checkout.branch === undefined ? null : await resolveCommit(mirror, `refs/heads/${checkout.branch}`);
    const workspaceRoot = await makeWorkspace(checkout, mirror, sha);
    return {
      workspaceRoot,
      headSha: sha,
      remoteBranchSha,
      cacheState,
      cleanup: () => rm(workspaceRoot, { recursive: true, force: true }),
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
