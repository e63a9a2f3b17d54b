import {
  isHostGitError,
  runHostGit,
  type HostGitOptions,
  type HostRepository,
} from "../../../core/git/index.js";

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
  /** For git that only reads the mirror. */
  readonly localOptions: HostGitOptions;
  /** For the one fetch that brings the blobs: the token, scoped to the remote, and the signal. */
  readonly remoteOptions: HostGitOptions;
}

export type CheckoutObjectsResult =
  | { readonly success: true; readonly value: { readonly fetchedBlobs: number } }
  | { readonly success: false; readonly error: string };

/** `git diff-tree -r -z` records: `:<old mode> <new mode> <old oid> <new oid> <status>\0<path>\0`. */
const DIFF_RECORD = /^:\d+ \d+ ([0-9a-f]+) [0-9a-f]+ [A-Z]\d*$/;
const ZERO_OID = /^0+$/;

/**
 * Objects of a tree the mirror does not hold. `--missing=print` lists them instead of asking the
 * remote for each (a partial clone's lazy fetch would, one request per object, without the token).
 */
async function listMissing(options: CheckoutObjectsOptions, tree: string): Promise<Set<string>> {
  const { stdout } = await runHostGit(
    options.mirror,
    ["rev-list", "--objects", "--missing=print", tree],
    options.localOptions,
  );
  const missing = new Set<string>();
  for (const line of stdout.split("\n")) if (line.startsWith("?")) missing.add(line.slice(1).trim());
  return missing;
}

/** Blobs on the old side of `diff base...commit` (git diffs from the merge base). */
async function listBaseSideBlobs(
  options: CheckoutObjectsOptions,
  base: string,
): Promise<{ mergeBase: string; blobs: string[] } | null> {
  const mergeBase = await runHostGit(
    options.mirror,
    ["merge-base", base, options.commit],
    options.localOptions,
  ).then(
    (result) => result.stdout.trim(),
    (error: unknown) => {
      // Exit 1: no common history (or the base is not here); the review's own diff says so.
      if (isHostGitError(error) && error.code === "GIT_FAILED") return "";
      throw error;
    },
  );
  if (mergeBase === "") return null;
  // Trees only: the mirror holds every tree, so this reads nothing that is missing.
  const { stdout } = await runHostGit(
    options.mirror,
    ["diff-tree", "-r", "-z", "--no-renames", mergeBase, options.commit],
    options.localOptions,
  );
  const blobs: string[] = [];
  const fields = stdout.split("\0");
  for (let index = 0; index < fields.length; index += 2) {
    const match = DIFF_RECORD.exec(fields[index] ?? "");
    if (match?.[1] !== undefined && !ZERO_OID.test(match[1])) blobs.push(match[1]);
  }
  return { mergeBase, blobs };
}

/**
 * Brings, in one fetch, every blob the task will read that the partial mirror lacks: those of
 * the checked-out tree and those a review diffs against. On a warm mirror that is only what is
 * new since the last task. Lazy fetching is never relied on: the task's git directory is not a
 * partial clone, so git there (the host's or a sandboxed command's) fails at once on a missing
 * object instead of reaching for the network.
 */
export async function bringCheckoutObjects(options: CheckoutObjectsOptions): Promise<CheckoutObjectsResult> {
  const wanted = await listMissing(options, `${options.commit}^{tree}`);
  for (const base of options.diffBases) {
    const baseSide = await listBaseSideBlobs(options, base);
    if (baseSide === null || baseSide.blobs.length === 0) continue;
    const missingAtBase = await listMissing(options, `${baseSide.mergeBase}^{tree}`);
    for (const blob of baseSide.blobs) if (missingAtBase.has(blob)) wanted.add(blob);
  }
  if (wanted.size === 0) return { success: true, value: { fetchedBlobs: 0 } };
  try {
    // As git's own lazy fetch does it: the ids on standard input, no negotiation (the remote
    // would otherwise take every blob of a commit the mirror has for one it holds), and the
    // mirror's filter, which never drops an object asked for by id.
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
  const stillMissing = await listMissing(options, `${options.commit}^{tree}`);
  if (stillMissing.size > 0)
    return {
      success: false,
      error: `the remote did not send ${stillMissing.size} objects of ${options.commit}`,
    };
  return { success: true, value: { fetchedBlobs: wanted.size } };
}
