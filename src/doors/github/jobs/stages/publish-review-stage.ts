import type { Finding } from "../../../../core/review/index.js";
import { buildReview } from "../../review/build-review.js";
import type { FixedThread } from "../../review/find-fixed-threads.js";
import { postReview } from "../../review/post-review.js";
import { resolveReviewThread } from "../../review/read-review-threads.js";
import { titleOfCommentBody } from "../../review/render-review-text.js";
import { createCheckRun } from "../create-check-run.js";
import type { GitHubJob, JobGitHub, JobReport } from "../github-job.js";
import type { RepositoryConfig } from "../../repository-config.js";
import { formatUsage } from "../track-run-progress.js";
import type { ReviewDiff } from "./read-review-diff-stage.js";

export interface PublishedReview {
  readonly reported: number;
  /** This bot's earlier finding threads resolved as fixed (and named in the review's body). */
  readonly resolved: number;
  readonly url: string | null;
  readonly usage: string;
}

/**
 * Posts the reviewers' findings as one review: inline where the line is in the pull request's
 * diff, in the body otherwise, none posted before repeated. A check run on the head says how many.
 */
export async function publishReviewStage(
  github: Pick<JobGitHub, "octokit">,
  report: Pick<JobReport, "redact" | "runUrl" | "log">,
  input: {
    readonly job: GitHubJob;
    readonly headSha: string;
    readonly diff: ReviewDiff;
    readonly review: RepositoryConfig["review"];
    /** Fingerprints of findings this bot posted on the pull request before: never repeated. */
    readonly previousFingerprints: ReadonlySet<string>;
    /** This bot's earlier threads the new commits fixed: resolved, then named in the body. */
    readonly fixedThreads?: readonly FixedThread[];
    readonly panel: {
      readonly findings: readonly Finding[];
      readonly notes: readonly string[];
      readonly totalTokens: number;
      readonly costUsd: number | null;
    };
  },
  signal?: AbortSignal,
): Promise<PublishedReview> {
  const { job, headSha, diff, panel } = input;
  const { owner, repo } = job;
  // A cancelled review publishes nothing: the reviewers' partial answers stop here.
  signal?.throwIfAborted();
  const resolved = await resolveFixedThreads(github, report, input.fixedThreads ?? [], signal);
  signal?.throwIfAborted();
  const findings = panel.findings.filter((finding) => !diff.isIgnored(finding.path));
  const notes = panel.notes.length === 0 ? "" : `\n\n${panel.notes.map((note) => `- ${note}`).join("\n")}`;
  const built = buildReview({
    findings,
    files: diff.files,
    maxComments: input.review.max_comments,
    ...(input.review.min_severity === undefined ? {} : { minSeverity: input.review.min_severity }),
    previousFingerprints: input.previousFingerprints,
    summary: `Reviewed ${diff.scope} (${diff.files.length} file(s)) for correctness, security and tests.${notes}`,
    ...(resolved.length === 0 ? {} : { resolvedEarlier: { headSha, threads: resolved } }),
  });
  const posted = await postReview(github.octokit, {
    owner,
    repo,
    pull_number: job.number,
    commit_id: headSha,
    review: built,
    redact: report.redact,
    ...(signal === undefined ? {} : { signal }),
  });
  const reported = built.comments.length + built.outsideDiff.length;
  const usage = formatUsage(panel.totalTokens, panel.costUsd);
  const severe = findings.some((finding) => finding.severity === "critical" || finding.severity === "high");
  await createCheckRun(github.octokit, {
    owner,
    repo,
    headSha,
    conclusion: reported === 0 ? "success" : severe ? "failure" : "neutral",
    title: reported === 0 ? "No new findings" : `${reported} finding(s)`,
    summary: `Three reviewers read ${diff.scope}: ${findings.length} finding(s), ${reported} reported, ${built.skippedAsPosted} already posted. ${usage}`,
    redact: report.redact,
    ...(report.runUrl === undefined ? {} : { detailsUrl: report.runUrl }),
    ...(report.log === undefined ? {} : { log: report.log }),
  });
  return { reported, resolved: resolved.length, url: posted.url, usage };
}

/**
 * Resolves each fixed thread through GraphQL. A thread GitHub will not resolve (the token may not
 * write pull requests, a person resolved it meanwhile) is left as it is and not named as resolved.
 */
async function resolveFixedThreads(
  github: Pick<JobGitHub, "octokit">,
  report: Pick<JobReport, "log">,
  fixed: readonly FixedThread[],
  signal: AbortSignal | undefined,
): Promise<{ path: string; title: string; url: string }[]> {
  const resolved: { path: string; title: string; url: string }[] = [];
  for (const entry of fixed) {
    signal?.throwIfAborted();
    try {
      if (await resolveReviewThread(github.octokit, entry.thread.id))
        resolved.push({
          path: entry.thread.path,
          title: titleOfCommentBody(entry.thread.comments[0]?.body ?? ""),
          url: entry.url,
        });
    } catch (error) {
      report.log?.("could not resolve a fixed review thread", {
        thread: entry.thread.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return resolved;
}
