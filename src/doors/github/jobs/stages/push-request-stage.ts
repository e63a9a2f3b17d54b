import { commitAndPush, type CommitAndPushResult } from "../../workspace/commit-and-push.js";
import type { GitHubJob, JobGitHub } from "../github-job.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";
import type { JobRepository } from "../read-job-repository.js";
import { resolveCoAuthor } from "../resolve-co-author.js";

/** A request's change, pushed to the pull request's own branch (no new pull request). */
export async function pushRequestStage(
  github: JobGitHub,
  input: {
    readonly job: GitHubJob;
    readonly repository: JobRepository;
    readonly workspace: Pick<JobWorkspace, "repository" | "baseSha" | "remoteBranchSha">;
    readonly branch: string;
    /** Files the run's tools wrote: committed even when they look like build output. */
    readonly agentChangedFiles: readonly string[];
    /** The repository's `build_output` patterns, when it sets them. */
    readonly buildOutputPatterns?: readonly string[];
  },
  signal: AbortSignal,
): Promise<CommitAndPushResult> {
  const { job, workspace } = input;
  return commitAndPush({
    repository: workspace.repository,
    branch: input.branch,
    message: `Apply request on #${job.number}\n\nRequested by @${job.requester}.`,
    author: github.author,
    coAuthor: await resolveCoAuthor(github.octokit, job.requester),
    token: await github.getToken(),
    remoteUrl: input.repository.cloneUrl,
    baseSha: workspace.baseSha,
    agentChangedFiles: input.agentChangedFiles,
    ...(input.buildOutputPatterns === undefined ? {} : { buildOutputPatterns: input.buildOutputPatterns }),
    signal,
    ...(workspace.remoteBranchSha === null ? {} : { expectedRemoteSha: workspace.remoteBranchSha }),
  });
}
