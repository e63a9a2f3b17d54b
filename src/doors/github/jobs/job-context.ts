import type { RepositoryConfig } from "../repository-config.js";
import type { GitHubJob, GitHubJobDependencies, GitHubJobOutcome } from "./github-job.js";
import type { JobRepository } from "./read-job-repository.js";

/** What every flow gets besides the job: the repository, its config (default branch) and limits. */
export interface JobContext {
  readonly job: GitHubJob;
  readonly deps: GitHubJobDependencies;
  readonly repository: JobRepository;
  readonly config: RepositoryConfig;
  readonly commandTimeoutMs: number;
}

export function failedOutcome(summary: string, extra: Partial<GitHubJobOutcome> = {}): GitHubJobOutcome {
  return { status: "failed", summary, totalTokens: 0, costUsd: 0, ...extra };
}

/** Dependencies for a flow that neither records its workspace nor resumes (plan, review, answers). */
export function withoutResume(deps: GitHubJobDependencies): GitHubJobDependencies {
  const { workspaceStore: _store, tracePath: _trace, carriedRun: _carried, ...rest } = deps;
  return rest;
}
