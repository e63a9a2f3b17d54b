import type { JobOutcome } from "../github/jobs/github-job.js";
import type { TaskOutcome } from "./task-types.js";

/** What the queue stores of a job's outcome: plain JSON, no trace path or run id. */
export function toTaskOutcome(outcome: JobOutcome): TaskOutcome {
  return {
    status: outcome.status,
    summary: outcome.summary,
    totalTokens: outcome.totalTokens,
    costUsd: outcome.costUsd,
    ...(outcome.url === undefined ? {} : { url: outcome.url }),
    ...(outcome.pullRequestNumber === undefined ? {} : { pullRequestNumber: outcome.pullRequestNumber }),
  };
}
