import picomatch from "picomatch";
import { diffForPullRequest, diffRangeForSynchronize } from "../../review/diff-range-for-synchronize.js";
import { parseDiffForReview, type ReviewableFile } from "../../review/parse-diff-for-review.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";

export interface ReviewDiff {
  /** The pull request's files outside `review.ignore_paths`, from its whole diff (what comments anchor to). */
  readonly files: readonly ReviewableFile[];
  /** What the reviewers read: the whole diff, or only the commits since `since`. */
  readonly reviewedDiff: string;
  /** In words, for the summary: "the whole pull request" or "the commits since abc1234". */
  readonly scope: string;
  readonly isIgnored: (filePath: string) => boolean;
}

/** The diff a review reads, from the local checkout (no API call and no size limit). */
export async function readReviewDiffStage(
  workspace: Pick<JobWorkspace, "repository">,
  input: {
    /**
     * The commit the reviewers' reading starts from (the last reviewed head, or the head before a
     * push); null for the whole pull request. When it is gone or was rewritten (a force push),
     * there is no "new part" to tell apart and the whole pull request is read.
     */
    readonly since: string | null;
    readonly baseSha: string;
    readonly headSha: string;
    readonly ignorePaths: readonly string[];
  },
  signal: AbortSignal,
): Promise<ReviewDiff> {
  const diffOptions = { repository: workspace.repository, signal };
  const fullDiff = await diffForPullRequest({ ...diffOptions, base: input.baseSha, head: input.headSha });
  let reviewedDiff = fullDiff;
  let scope = "the whole pull request";
  const since = input.since;
  if (since !== null && since !== input.headSha) {
    const range = await diffRangeForSynchronize({ ...diffOptions, before: since, after: input.headSha });
    if (range.success) {
      reviewedDiff = range.value;
      scope = `the commits since ${since.slice(0, 7)}`;
    }
  }
  const isIgnored: (filePath: string) => boolean =
    input.ignorePaths.length > 0 ? picomatch([...input.ignorePaths], { dot: true }) : () => false;
  const files = parseDiffForReview(fullDiff).filter((file) => !isIgnored(file.path));
  return { files, reviewedDiff, scope, isIgnored };
}
