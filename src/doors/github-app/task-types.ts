import type { ProbotOctokit } from "probot";
import type { LoopEvent } from "../../core/loop/index.js";
import type { JobStatus } from "../github/jobs/github-job.js";
import type { ClaimedTask, JsonValue } from "../../queue/task-queue.js";
import type { GitHubRequest } from "./github-request.js";
import type { ProgressComment } from "../github/create-progress-comment.js";

/** A task as the queue hands it to a worker: its lease, its attempt, and the request as its payload. */
export type GitHubTask = ClaimedTask<GitHubRequest>;

/** A job's own outcomes, plus the one only the queue can reach: the budget was spent at claim. */
export type TaskOutcomeStatus = JobStatus | "budget-spent";

/** What a finished task reports; stored with the task, so it must stay plain JSON. */
export interface TaskOutcome {
  readonly status: TaskOutcomeStatus;
  /** One line for logs and metrics. */
  readonly summary: string;
  readonly url?: string;
  readonly pullRequestNumber?: number;
  readonly totalTokens?: number;
  /** Null when the model had no known price. */
  readonly costUsd?: number | null;
}

export interface TaskHandlerContext {
  /** Authenticated as the installation; its token never reaches the sandbox. */
  readonly octokit: ProbotOctokit;
  /** Aborted when the task is cancelled (`@agentforge stop`) or its lease is lost. */
  readonly signal: AbortSignal;
  /** The one comment edited in place as the run goes. */
  readonly progress: ProgressComment;
  /** Sees every event of the task's agent run (metrics, budget accounting), beside the progress comment. */
  readonly onLoopEvent?: (event: LoopEvent) => void;
  /**
   * Stores a value with the task in the queue (Redis) for a worker on another machine to continue
   * it; false once this worker no longer holds the task. Absent where the queue carries none.
   */
  readonly saveHandOver?: (value: JsonValue) => Promise<boolean>;
}

/**
 * Does the work of one task: checkout, agent run, pull request, plan or review. Throw an error
 * with `retryable: true` for a transient failure (rate limit, network) to be tried again.
 */
export type TaskHandler = (task: GitHubTask, context: TaskHandlerContext) => Promise<TaskOutcome>;
