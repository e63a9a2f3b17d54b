import type { WorkspaceRepository } from "../../../core/git/index.js";

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
}

export interface RepositoryCacheOptions {
  /** Holds `mirrors/` (one bare repository per remote) and `workspaces/`. Private to the App. */
  readonly cacheDir: string;
  readonly hostEnv?: NodeJS.ProcessEnv;
}
