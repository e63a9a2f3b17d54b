import type { RunResult } from "../../../../core/agent-run.js";
import {
  openOrUpdatePullRequest,
  type PullRequestResult,
} from "../../pull-request/open-or-update-pull-request.js";
import { renderPullRequestBody } from "../../pull-request/render-pull-request-body.js";
import { commitAndPush } from "../../workspace/commit-and-push.js";
import { createCheckRun } from "../create-check-run.js";
import type { GitHubJob, JobGitHub, JobReport } from "../github-job.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";
import type { JobRepository } from "../read-job-repository.js";
import { resolveCoAuthor } from "../resolve-co-author.js";
import { usageLine } from "../job-messages.js";
import type { TestRun } from "./run-test-stage.js";

export type PublishFixResult =
  | { readonly kind: "no-change" }
  | { readonly kind: "push-failed"; readonly error: string }
  | {
      readonly kind: "published";
      readonly pullRequest: PullRequestResult;
      readonly sha: string | undefined;
      /** The run reached its answer and the tests pass: a ready pull request that closes the issue. */
      readonly isComplete: boolean;
    };

export interface PublishFixInput {
  readonly job: GitHubJob;
  readonly repository: JobRepository;
  readonly workspace: Pick<JobWorkspace, "repository" | "baseSha" | "remoteBranchSha">;
  readonly branch: string;
  readonly title: string;
  readonly result: RunResult;
  readonly tests: TestRun;
  /** The repository's `build_output` patterns, when it sets them. */
  readonly buildOutputPatterns?: readonly string[];
}

/**
 * Commits what the agent changed as the App (the requester as co-author), pushes the work branch,
 * opens or updates its pull request (a draft unless the run finished and the tests pass) and
 * records a check run on the commit.
 */
export async function publishFixStage(
  github: JobGitHub,
  report: Pick<JobReport, "redact" | "runUrl" | "log">,
  input: PublishFixInput,
  signal: AbortSignal,
): Promise<PublishFixResult> {
  const { job, repository, workspace, branch, result, tests } = input;
  const { owner, repo } = job;
  const pushed = await commitAndPush({
    repository: workspace.repository,
    branch,
    message: `${input.title}\n\nRequested by @${job.requester} in #${job.number}.`,
    author: github.author,
    coAuthor: await resolveCoAuthor(github.octokit, job.requester),
    token: await github.getToken(),
    remoteUrl: repository.cloneUrl,
    baseSha: workspace.baseSha,
    agentChangedFiles: result.filesChanged,
    ...(input.buildOutputPatterns === undefined ? {} : { buildOutputPatterns: input.buildOutputPatterns }),
    signal,
    ...(workspace.remoteBranchSha === null ? {} : { expectedRemoteSha: workspace.remoteBranchSha }),
  });
  if (!pushed.committed && pushed.error === undefined) return { kind: "no-change" };
  if (!pushed.pushed) return { kind: "push-failed", error: pushed.error ?? "unknown error" };
  const isComplete = result.exitReason === "final_answer" && tests.isPassing;
  const pullRequest = await openOrUpdatePullRequest(github.octokit, {
    owner,
    repo,
    head: branch,
    base: repository.defaultBranch,
    title: input.title,
    body: renderPullRequestBody({
      summary: result.finalAnswer ?? "",
      filesChanged: result.filesChanged,
      ...(pushed.files === undefined ? {} : { committedFiles: pushed.files }),
      ...(pushed.excluded === undefined ? {} : { leftOut: pushed.excluded }),
      commands: result.commandsRun,
      tests: tests.records,
      tokens: { input: result.usage.promptTokens, output: result.usage.completionTokens },
      costUsd: result.costUsd,
      issueNumber: job.number,
      exitReason: result.exitReason,
      traceSummary: `${result.turns} turns, ${result.commandsRun.length} commands`,
    }),
    issueNumber: job.number,
    draft: !isComplete,
    redact: report.redact,
  });
  if (pushed.sha !== undefined) {
    await createCheckRun(github.octokit, {
      owner,
      repo,
      headSha: pushed.sha,
      conclusion: isComplete ? "success" : tests.isPassing ? "neutral" : "failure",
      title: isComplete ? "Fix ready for review" : "Fix needs a look",
      summary: `${usageLine(result)} · ended with \`${result.exitReason}\` · tests: ${tests.records.length === 0 ? "none configured" : tests.isPassing ? "passing" : "failing"}`,
      redact: report.redact,
      ...(report.runUrl === undefined ? {} : { detailsUrl: report.runUrl }),
      ...(report.log === undefined ? {} : { log: report.log }),
    });
  }
  return { kind: "published", pullRequest, sha: pushed.sha, isComplete };
}
