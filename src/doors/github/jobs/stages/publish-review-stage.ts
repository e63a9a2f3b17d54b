import type { Finding } from "../../../../core/review/index.js";
import { buildReview } from "../../review/build-review.js";
import { postReview } from "../../review/post-review.js";
import { createCheckRun } from "../create-check-run.js";
import type { GitHubJob, JobGitHub, JobReport } from "../github-job.js";
import type { RepositoryConfig } from "../../repository-config.js";
import { formatUsage } from "../track-run-progress.js";
import type { ReviewDiff } from "./read-review-diff-stage.js";

export interface PublishedReview {
  readonly reported: number;
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
    readonly panel: {
      readonly findings: readonly Finding[];
      readonly notes: readonly string[];
      readonly totalTokens: number;
      readonly costUsd: number | null;
    };
  },
): Promise<PublishedReview> {
  const { job, headSha, diff, panel } = input;
  const { owner, repo } = job;
  const findings = panel.findings.filter((finding) => !diff.isIgnored(finding.path));
  const notes = panel.notes.length === 0 ? "" : `\n\n${panel.notes.map((note) => `- ${note}`).join("\n")}`;
  const built = buildReview({
    findings,
    files: diff.files,
    maxComments: input.review.max_comments,
    ...(input.review.min_severity === undefined ? {} : { minSeverity: input.review.min_severity }),
    previousFingerprints: input.previousFingerprints,
    summary: `Reviewed ${diff.scope} (${diff.files.length} file(s)) for correctness, security and tests.${notes}`,
  });
  const posted = await postReview(github.octokit, {
    owner,
    repo,
    pull_number: job.number,
    commit_id: headSha,
    review: built,
    redact: report.redact,
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
  return { reported, url: posted.url, usage };
}
