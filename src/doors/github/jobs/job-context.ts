import type { RunResult } from "../../../core/agent-run.js";
import type { RepositoryConfig } from "../repository-config.js";
import type { GitHubJob, JobDependencies, JobOutcome } from "./github-job.js";
import type { JobRepository } from "./read-job-repository.js";

/** What every flow gets besides the job: the repository, its config (default branch) and limits. */
export interface JobContext {
  readonly job: GitHubJob;
  readonly deps: JobDependencies;
  readonly repository: JobRepository;
  readonly config: RepositoryConfig;
  readonly commandTimeoutMs: number;
}

export function failedOutcome(summary: string, extra: Partial<JobOutcome> = {}): JobOutcome {
  return { status: "failed", summary, totalTokens: 0, costUsd: 0, ...extra };
}

/** What a job's outcome carries of its run, spent or not. */
export function spentBy(result: RunResult): Pick<JobOutcome, "totalTokens" | "costUsd" | "runId"> {
  return { totalTokens: result.usage.totalTokens, costUsd: result.costUsd, runId: result.runId };
}

/** Dependencies for a flow that neither records its workspace nor resumes (plan, review, answers). */
export function withoutRecovery(deps: JobDependencies): JobDependencies {
  const { store: _store, handOver: _handOver, ...workspace } = deps.workspace;
  const { tracePath: _trace, ...agent } = deps.agent;
  return { ...deps, workspace, agent };
}
