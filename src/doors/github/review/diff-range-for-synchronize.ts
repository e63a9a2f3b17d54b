import { isHostGitError } from "../../../core/git/index.js";
import type { HostRepository } from "../../../core/git/index.js";
import { runHostGit } from "../../../core/git/index.js";

export type DiffRangeFailure = "BEFORE_MISSING" | "NOT_FAST_FORWARD";

export type DiffRangeResult =
  | { readonly success: true; readonly value: string }
  | { readonly success: false; readonly error: DiffRangeFailure; readonly message: string };

export interface DiffOptions {
  /** A checkout holding both commits (the repository cache fetches the pull request head). */
  readonly repository: HostRepository;
  readonly signal?: AbortSignal;
}

/**
 * Options that make the output the same on every host: no external diff or text conversion
 * driver, plain `a/` `b/` prefixes, unquoted non-ASCII paths, renames found.
 */
const DIFF_ARGUMENTS = [
  "diff",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--find-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

type Git = (args: readonly string[]) => Promise<string>;

function gitFor(options: DiffOptions): Git {
  return async (args) =>
    (
      await runHostGit(options.repository, args, {
        settings: [["core.quotePath", "false"]],
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })
    ).stdout;
}

async function succeeds(run: () => Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    // A non-zero exit is the answer "no"; a cancelled task or a missing git is a real failure.
    if (signal?.aborted !== true && isHostGitError(error) && error.code === "GIT_FAILED") return false;
    throw error;
  }
}

/**
 * What changed in `paths` from one commit to another, or null when `from` is not in the checkout
 * (a force push dropped it).
 */
export async function diffBetweenCommits(
  options: DiffOptions & { from: string; to: string; paths: readonly string[] },
): Promise<string | null> {
  const git = gitFor(options);
  const hasFrom = await succeeds(() => git(["cat-file", "-e", `${options.from}^{commit}`]), options.signal);
  if (!hasFrom) return null;
  return git([...DIFF_ARGUMENTS, options.from, options.to, "--", ...options.paths]);
}

/** The pull request's whole diff, as GitHub shows it: from the merge base of base and head. */
export async function diffForPullRequest(
  options: DiffOptions & { base: string; head: string },
): Promise<string> {
  return gitFor(options)([...DIFF_ARGUMENTS, `${options.base}...${options.head}`, "--"]);
}

/**
 * What a `synchronize` push added: `before..after`, from the local checkout (no API call and no
 * size limit). When `before` is gone or was rewritten (a force push), there is no "new part" to
 * tell apart, and the caller reviews the whole pull request instead.
 *
 * Reviewers read this diff, but comments must still be checked against `diffForPullRequest`:
 * GitHub anchors them to the pull request's diff, not to the push.
 */
export async function diffRangeForSynchronize(
  options: DiffOptions & { before: string; after: string },
): Promise<DiffRangeResult> {
  const git = gitFor(options);
  const hasBefore = await succeeds(
    () => git(["cat-file", "-e", `${options.before}^{commit}`]),
    options.signal,
  );
  if (!hasBefore) {
    return {
      success: false,
      error: "BEFORE_MISSING",
      message: `commit ${options.before} is not in the checkout`,
    };
  }
  const isAncestor = await succeeds(
    () => git(["merge-base", "--is-ancestor", options.before, options.after]),
    options.signal,
  );
  if (!isAncestor) {
    return {
      success: false,
      error: "NOT_FAST_FORWARD",
      message: `${options.after} does not build on ${options.before}`,
    };
  }
  return {
    success: true,
    value: await git([...DIFF_ARGUMENTS, `${options.before}..${options.after}`, "--"]),
  };
}
