import {
  isHostGitError,
  runHostGit,
  type HostGitOptions,
  type HostRepository,
} from "../../../core/git/index.js";
import { listAbsentObjects, openPresenceView } from "./open-presence-view.js";

export interface CheckoutObjectsOptions {
  /** The partial mirror: every commit and tree of its branches, blobs only where a task needed them. */
  readonly mirror: HostRepository;
  /** The commit the task checks out: every blob of its tree is brought. */
  readonly commit: string;
  /**
   * Commits the caller will diff the checkout against (a pull request's base, a push's `before`):
   * the blobs `git diff <base>...<commit>` reads on the base side are brought too.
   */
  readonly diffBases: readonly string[];
  /**
   * A commit whose every blob the mirror is known to hold (the last one brought): only blobs that
   * differ from it are candidates, found by comparing two trees instead of walking the whole one.
   */
  readonly completeCommit: string | null;
  /** The mirror was cloned by this checkout: it holds no blob at all, so none is looked up. */
  readonly freshMirror: boolean;
  /** For git that only reads the mirror. */
  readonly localOptions: HostGitOptions;
  /** For the one fetch that brings the blobs: the token, scoped to the remote, and the signal. */
  readonly remoteOptions: HostGitOptions;
}

export type CheckoutObjectsResult =
  | { readonly success: true; readonly value: { readonly fetchedBlobs: number } }
  | { readonly success: false; readonly error: string };

/** `git diff-tree -r -z` records: `:<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0`. */
const DIFF_RECORD = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/;
const GITLINK_MODE = "160000";
const ZERO_OID = /^0+$/;

/** `git ls-tree -r -z` records: `<mode> <type> <oid>\t<path>`. */
const TREE_RECORD = /^(\d+) (\w+) ([0-9a-f]+)\t/;

/** Every blob id of a commit's tree (trees are all in the mirror; gitlinks are another repository's). */
async function listTreeBlobs(options: CheckoutObjectsOptions, commit: string): Promise<string[]> {
  const { stdout } = await runHostGit(
    options.mirror,
    ["ls-tree", "-r", "-z", "--full-tree", commit],
    options.localOptions,
  );
  const blobs = new Set<string>();
  for (const record of stdout.split("\0")) {
    const match = TREE_RECORD.exec(record);
    if (match !== null && match[2] === "blob") blobs.add(match[3]!);
  }
  return [...blobs];
}

/** Blob ids on one side of the entries that differ between two commits' trees (trees only: all present). */
async function listChangedBlobs(
  options: CheckoutObjectsOptions,
  from: string,
  to: string,
  side: "old" | "new",
): Promise<string[]> {
  const { stdout } = await runHostGit(
    options.mirror,
    ["diff-tree", "-r", "-z", "--no-renames", from, to],
    options.localOptions,
  );
  const blobs: string[] = [];
  const fields = stdout.split("\0");
  for (let index = 0; index < fields.length; index += 2) {
    const match = DIFF_RECORD.exec(fields[index] ?? "");
    if (match === null) continue;
    const [, oldMode, newMode, oldId, newId] = match;
    const [mode, id] = side === "old" ? [oldMode, oldId] : [newMode, newId];
    // Gitlinks (160000) are commits of another repository, never fetched.
    if (id !== undefined && mode !== GITLINK_MODE && !ZERO_OID.test(id)) blobs.push(id);
  }
  return blobs;
}

async function mergeBaseOf(options: CheckoutObjectsOptions, base: string): Promise<string | null> {
  return runHostGit(options.mirror, ["merge-base", base, options.commit], options.localOptions).then(
    (result) => result.stdout.trim(),
    (error: unknown) => {
      // Exit 1: no common history; the review's own diff says so.
      if (isHostGitError(error) && error.code === "GIT_FAILED") return null;
      throw error;
    },
  );
}

/** The candidates the mirror lacks, looked up through its presence view: one lookup per id, no fetch. */
async function narrow(options: CheckoutObjectsOptions, candidates: readonly string[]): Promise<string[]> {
  if (options.freshMirror) return [...new Set(candidates)];
  const view = await openPresenceView(options.mirror);
  return listAbsentObjects(view, [...new Set(candidates)], options.localOptions);
}

/** The checked-out tree's blobs the mirror lacks: among those changed since the complete commit, or all. */
async function listCheckoutCandidates(options: CheckoutObjectsOptions): Promise<string[]> {
  // The same commit as last time (no push since): nothing can be missing, and no git runs.
  if (options.completeCommit === options.commit) return [];
  if (options.completeCommit !== null && !options.freshMirror) {
    const changed = await listChangedBlobs(options, options.completeCommit, options.commit, "new").catch(
      (error: unknown) => {
        // The recorded commit is not in this mirror (a mirror cloned again): look at the whole tree.
        if (isHostGitError(error) && error.code === "GIT_FAILED") return null;
        throw error;
      },
    );
    if (changed !== null) return narrow(options, changed);
  }
  return narrow(options, await listTreeBlobs(options, options.commit));
}

/**
 * Brings, in one fetch, every blob the task will read that the partial mirror lacks: those of
 * the checked-out tree and those a review diffs against. On a warm mirror the refresh already
 * brought the new commits' blobs with their refs, so this is usually no fetch at all. Lazy fetching is never relied on: the task's git directory is not a
 * partial clone, so git there (the host's or a sandboxed command's) fails at once on a missing
 * object instead of reaching for the network.
 */
export async function bringCheckoutObjects(options: CheckoutObjectsOptions): Promise<CheckoutObjectsResult> {
  const wanted = new Set<string>(await listCheckoutCandidates(options));
  for (const base of options.diffBases) {
    const mergeBase = await mergeBaseOf(options, base);
    if (mergeBase === null) continue;
    const baseSide = await listChangedBlobs(options, mergeBase, options.commit, "old");
    for (const blob of await narrow(options, baseSide)) wanted.add(blob);
  }
  if (wanted.size === 0) return { success: true, value: { fetchedBlobs: 0 } };
  try {
    // As git's own lazy fetch does it: the ids on standard input, no negotiation (the remote
    // would otherwise take every blob of a commit the mirror has for one it holds), and the
    // mirror's filter, which never drops an object asked for by id. fetch checks that every id
    // asked for arrived, so a success means the checkout can be written.
    await runHostGit(
      options.mirror,
      [
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        "--recurse-submodules=no",
        "--filter=blob:none",
        "--stdin",
        "origin",
      ],
      {
        ...options.remoteOptions,
        settings: [...(options.remoteOptions.settings ?? []), ["fetch.negotiationAlgorithm", "noop"]],
        input: `${[...wanted].join("\n")}\n`,
      },
    );
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
  return { success: true, value: { fetchedBlobs: wanted.size } };
}
