import { GitError, type SimpleGit } from "simple-git";
import { createGit } from "../workspace/create-git.js";

export type DiffRangeFailure = "BEFORE_MISSING" | "NOT_FAST_FORWARD";

export type DiffRangeResult =
  | { readonly success: true; readonly value: string }
  | { readonly success: false; readonly error: DiffRangeFailure; readonly message: string };

export interface DiffOptions {
  /** A checkout holding both commits (the repository cache fetches the pull request head). */
  readonly workspaceRoot: string;
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

function gitFor(options: DiffOptions): SimpleGit {
  return createGit({
    baseDirectory: options.workspaceRoot,
    settings: [["core.quotePath", "false"]],
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}

async function succeeds(run: () => Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await run();
    return true;
  } catch (error) {
    // A non-zero exit is the answer "no"; a cancelled task or a missing git is a real failure.
    if (signal?.aborted !== true && error instanceof GitError) return false;
    throw error;
  }
}

/** The pull request's whole diff, as GitHub shows it: from the merge base of base and head. */
export async function diffForPullRequest(
  options: DiffOptions & { base: string; head: string },
): Promise<string> {
  return gitFor(options).raw([...DIFF_ARGUMENTS, `${options.base}...${options.head}`, "--"]);
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
    () => git.raw(["cat-file", "-e", `${options.before}^{commit}`]),
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
    () => git.raw(["merge-base", "--is-ancestor", options.before, options.after]),
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
    value: await git.raw([...DIFF_ARGUMENTS, `${options.before}..${options.after}`, "--"]),
  };
}
