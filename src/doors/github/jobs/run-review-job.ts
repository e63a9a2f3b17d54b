import picomatch from "picomatch";
import { buildReview } from "../review/build-review.js";
import { collectPostedFingerprints } from "../review/collect-posted-fingerprints.js";
import { diffForPullRequest, diffRangeForSynchronize } from "../review/diff-range-for-synchronize.js";
import type { Finding } from "../../../core/review/finding.js";
import { parseDiffForReview } from "../review/parse-diff-for-review.js";
import { postReview } from "../review/post-review.js";
import { createCheckRun } from "./create-check-run.js";
import type { GitHubJobOutcome } from "./github-job.js";
import { failedOutcome, withoutResume, type JobContext } from "./job-context.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readPullRequest } from "./read-pull-request.js";
import { runReviewerPanel } from "../../../core/review/run-reviewer-panel.js";
import { formatUsage } from "./track-run-progress.js";

/**
 * A review of a pull request by three read-only reviewers. The head is checked out only to be
 * read: no setup or test command runs, whoever wrote it, and the token stays with git on the
 * host. Comments are placed against the whole diff (what GitHub anchors them to); on
 * `synchronize` the reviewers read only what the push added.
 */
export async function runReviewJob(context: JobContext): Promise<GitHubJobOutcome> {
  const { job, deps, repository, config } = context;
  const { owner, repo } = job;
  if (deps.model === undefined) {
    await deps.progress.finish(
      "❌ Reviews are not set up on this installation (no model for the reviewers). Ask the operator.",
    );
    return failedOutcome("no model for reviewers");
  }
  await deps.progress.update(`👀 Reviewing #${job.number}…`);
  const pull = await readPullRequest(deps.octokit, {
    owner,
    repo,
    number: job.number,
    fullName: repository.fullName,
  });
  const headSha = pull.headSha;
  const workspace = await prepareJobWorkspace(withoutResume(deps), {
    cloneUrl: repository.cloneUrl,
    ref: headSha,
    fetchRefs: [`refs/pull/${job.number}/head`],
  });
  try {
    const diffOptions = { repository: workspace.repository, signal: deps.signal };
    const fullDiff = await diffForPullRequest({ ...diffOptions, base: pull.baseSha, head: headSha });
    let reviewedDiff = fullDiff;
    let scope = "the whole pull request";
    if (job.beforeSha !== undefined && job.beforeSha !== headSha) {
      const range = await diffRangeForSynchronize({ ...diffOptions, before: job.beforeSha, after: headSha });
      if (range.success) {
        reviewedDiff = range.value;
        scope = `the commits pushed since ${job.beforeSha.slice(0, 7)}`;
      }
    }
    const ignorePaths = config.review.ignore_paths;
    const isIgnored: (filePath: string) => boolean =
      ignorePaths.length > 0 ? picomatch([...ignorePaths], { dot: true }) : () => false;
    const files = parseDiffForReview(fullDiff).filter((file) => !isIgnored(file.path));
    if (files.length === 0 || reviewedDiff.trim().length === 0) {
      await deps.progress.finish(
        `Nothing to review in ${scope} of #${job.number} (no changed files outside \`review.ignore_paths\`).`,
      );
      return { status: "review-posted", summary: "nothing to review", totalTokens: 0, costUsd: 0 };
    }
    await deps.progress.update(
      `👀 Reviewing #${job.number}: ${files.length} file(s), three reviewers at work…`,
    );
    const panel = await runReviewerPanel({
      model: deps.model,
      commandRunner: workspace.commandRunner,
      workspaceRoot: workspace.workspaceRoot,
      signal: deps.signal,
      redact: deps.redact,
      diff: reviewedDiff,
      diffSource: "github:pull-request diff",
      description: `Pull request #${job.number} of ${repository.fullName}; you are reviewing ${scope}.`,
    });
    const findings: Finding[] = panel.findings.filter((finding) => !isIgnored(finding.path));
    const previousFingerprints = await collectPostedFingerprints(deps.octokit, {
      owner,
      repo,
      pull_number: job.number,
    });
    const notes = panel.notes.length === 0 ? "" : `\n\n${panel.notes.map((note) => `- ${note}`).join("\n")}`;
    const built = buildReview({
      findings,
      files,
      maxComments: config.review.max_comments,
      previousFingerprints,
      summary: `Reviewed ${scope} (${files.length} file(s)) for correctness, security and tests.${notes}`,
    });
    const posted = await postReview(deps.octokit, {
      owner,
      repo,
      pull_number: job.number,
      commit_id: headSha,
      review: built,
      redact: deps.redact,
    });
    const reported = built.comments.length + built.outsideDiff.length;
    const usage = formatUsage(panel.totalTokens, panel.costUsd);
    const severe = findings.some((finding) => finding.severity === "critical" || finding.severity === "high");
    await createCheckRun(deps.octokit, {
      owner,
      repo,
      headSha,
      conclusion: reported === 0 ? "success" : severe ? "failure" : "neutral",
      title: reported === 0 ? "No new findings" : `${reported} finding(s)`,
      summary: `Three reviewers read ${scope}: ${findings.length} finding(s), ${reported} reported, ${built.skippedAsPosted} already posted. ${usage}`,
      redact: deps.redact,
      ...(deps.runUrl === undefined ? {} : { detailsUrl: deps.runUrl }),
      ...(deps.log === undefined ? {} : { log: deps.log }),
    });
    const link = posted.url === null ? "" : ` ${posted.url}`;
    await deps.progress.finish(`✅ Review posted with ${reported} finding(s):${link}\n\n${usage}`);
    return {
      status: "review-posted",
      summary: `${reported} finding(s)`,
      pullRequestNumber: job.number,
      totalTokens: panel.totalTokens,
      costUsd: panel.costUsd,
      ...(posted.url === null ? {} : { url: posted.url }),
    };
  } finally {
    await workspace.cleanup();
  }
}
