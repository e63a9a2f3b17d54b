import { runReviewerPanel } from "../../../core/review/index.js";
import { jobModelClient } from "./check-model-choice.js";
import type { JobOutcome } from "./github-job.js";
import { failedOutcome, withoutRecovery, type JobContext } from "./job-context.js";
import { jobHeadings, reviewMessages } from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readPullRequest } from "./read-pull-request.js";
import { readOwnReviewHistory } from "../review/read-own-review-history.js";
import { findFixedThreads, threadCommits } from "../review/find-fixed-threads.js";
import { fingerprintFinding } from "../review/fingerprint-finding.js";
import { readReviewThreads, type ReviewThread } from "../review/read-review-threads.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import type { GitHubJob, JobReport } from "./github-job.js";
import { publishReviewStage } from "./stages/publish-review-stage.js";
import { readReviewDiffStage } from "./stages/read-review-diff-stage.js";

/**
 * A review of a pull request by three read-only reviewers, as stages: checkout of the head, the
 * diff, the panel, the review. The head is checked out only to be read: no setup or test command
 * runs, whoever wrote it, the reviewers' commands see it read-only, and the token stays with git
 * on the host. Comments are placed against the whole diff (what GitHub anchors them to); on
 * a push or a bare `review` command the reviewers read only the commits since this bot's last
 * review (or since the head before the push, if it never reviewed); `review full` reads it all.
 */
export async function runReviewJob(context: JobContext): Promise<JobOutcome> {
  const { job, repository, config } = context;
  const deps = withoutRecovery(context.deps);
  const { github, report, signal } = deps;
  const model = jobModelClient(job, deps.agent);
  if (model === undefined) {
    await report.progress.finish(reviewMessages.noModel);
    return failedOutcome("no model for reviewers");
  }
  await report.progress.update(jobHeadings.review(job.number));
  const pull = await readPullRequest(github.octokit, {
    owner: job.owner,
    repo: job.repo,
    number: job.number,
    fullName: repository.fullName,
  });
  const headSha = pull.headSha;
  const history = await readOwnReviewHistory(
    github.octokit,
    { owner: job.owner, repo: job.repo, pull_number: job.number },
    // The Action with an App token posts as that App's bot, not as the commit author.
    github.ownLogin ?? github.author.name,
  );
  const threads = await readThreadsOrNone(github.octokit, job, report);
  const since = job.fullReview === true ? null : (history.lastReviewedCommit ?? job.beforeSha ?? null);
  if (since === headSha) {
    await report.progress.finish(reviewMessages.alreadyReviewed(job.number, headSha, github.mention));
    return {
      status: "review-posted",
      summary: "nothing new since the last review",
      totalTokens: 0,
      costUsd: 0,
    };
  }
  const workspace = await prepareJobWorkspace(deps, {
    cloneUrl: repository.cloneUrl,
    ref: headSha,
    fetchRefs: [`refs/pull/${job.number}/head`],
    // The reviewers read from `since`: its blobs come with the checkout, as the base's do.
    // The commits this bot's open threads were made on: their blobs tell whether a thread is fixed.
    diffBases: [...new Set([pull.baseSha, ...(since === null ? [] : [since]), ...threadCommits(threads)])],
  });
  try {
    const diff = await readReviewDiffStage(
      workspace,
      { since, baseSha: pull.baseSha, headSha, ignorePaths: config.review.ignore_paths },
      signal,
    );
    if (diff.files.length === 0 || diff.reviewedDiff.trim().length === 0) {
      await report.progress.finish(reviewMessages.nothingToReview(diff.scope, job.number));
      return { status: "review-posted", summary: "nothing to review", totalTokens: 0, costUsd: 0 };
    }
    await report.progress.update(jobHeadings.reviewing(job.number, diff.files.length));
    const panel = await runReviewerPanel({
      model,
      commandRunner: workspace.commandRunner,
      workspaceRoot: workspace.workspaceRoot,
      signal,
      redact: report.redact,
      diff: diff.reviewedDiff,
      diffSource: "github:pull-request diff",
      description: `Pull request #${job.number} of ${repository.fullName}; you are reviewing ${diff.scope}.`,
    });
    // The reviewers stop on a cancel but still answer: nothing after this point may publish.
    signal.throwIfAborted();
    const raisedAgain = new Set(
      panel.findings.filter((finding) => !diff.isIgnored(finding.path)).map(fingerprintFinding),
    );
    const fixedThreads = await findFixedThreads({
      threads,
      ownLogin: github.ownLogin ?? github.author.name,
      raisedAgain,
      repository: workspace.repository,
      headSha,
      signal,
    });
    const published = await publishReviewStage(
      github,
      report,
      {
        job,
        headSha,
        diff,
        review: config.review,
        previousFingerprints: history.fingerprints,
        fixedThreads,
        panel,
      },
      signal,
    );
    await report.progress.finish(
      reviewMessages.posted(
        published.reported,
        published.url,
        `\`${model.model}\` · ${published.usage}`,
        published.resolved,
      ),
    );
    return {
      status: "review-posted",
      summary: `${published.reported} finding(s)`,
      pullRequestNumber: job.number,
      totalTokens: panel.totalTokens,
      costUsd: panel.costUsd,
      ...(published.url === null ? {} : { url: published.url }),
    };
  } finally {
    await workspace.cleanup();
  }
}

/**
 * This bot's earlier threads, to resolve the fixed ones. Without them (GraphQL unreachable, an
 * Enterprise server without the field) the review is still posted; nothing is resolved, and the
 * log says why.
 */
async function readThreadsOrNone(
  octokit: GitHubRequester,
  job: Pick<GitHubJob, "owner" | "repo" | "number">,
  report: Pick<JobReport, "log">,
): Promise<ReviewThread[]> {
  try {
    return await readReviewThreads(octokit, { owner: job.owner, repo: job.repo, pull_number: job.number });
  } catch (error) {
    report.log?.("review threads could not be read; no earlier finding is resolved", {
      error: error instanceof Error ? error.message : String(error),
    });
    return [];
  }
}
