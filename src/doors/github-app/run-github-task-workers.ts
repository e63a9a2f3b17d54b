import type { ProbotOctokit } from "probot";
import { isRetryableError, runWorkerLoop, type WorkerLoopSummary } from "../../queue/run-worker-loop.js";
import type { JsonValue, TaskQueue } from "../../queue/task-queue.js";
import { createProgressComment } from "./create-progress-comment.js";
import type { GitHubTask } from "./github-task.js";
import type { DoorLogger } from "../github/github-logger.js";
import type { TaskHandler } from "./task-types.js";

export interface GitHubTaskWorkersOptions {
  readonly queue: TaskQueue<GitHubTask>;
  readonly handler: TaskHandler;
  /** `(id) => probot.auth(id)`: a fresh installation token per task, never stored with it. */
  readonly getInstallationOctokit: (installationId: number) => Promise<ProbotOctokit>;
  readonly concurrency: number;
  readonly signal: AbortSignal;
  readonly redact: (text: string) => string;
  readonly logger: DoorLogger;
  readonly pollMs?: number;
  readonly workerId?: string;
}

/**
 * The seam between the queue and the task handler: authenticates as the installation, gives
 * the handler one progress comment, and makes sure a task that throws still ends with a comment
 * saying so, since a silent failure is the one outcome a person cannot act on.
 */
export function runGitHubTaskWorkers(options: GitHubTaskWorkersOptions): Promise<WorkerLoopSummary> {
  return runWorkerLoop(
    options.queue,
    async (claimed, { signal }) => {
      const task = claimed.payload;
      const octokit = await options.getInstallationOctokit(task.installationId);
      const progress = createProgressComment(octokit, {
        owner: task.owner,
        repo: task.repo,
        issueNumber: task.number,
        redact: options.redact,
        logger: options.logger,
      });
      try {
        const outcome = await options.handler(
          { ...task, taskId: claimed.taskId, attempt: claimed.attempt, maxAttempts: claimed.maxAttempts },
          { octokit, signal, progress },
        );
        return { ...outcome } satisfies JsonValue;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const isLastAttempt = claimed.attempt >= claimed.maxAttempts;
        if (signal.aborted) {
          await progress.finish("Stopped on request.").catch((finishError: unknown) => {
            options.logger.warn(
              { err: finishError, taskId: claimed.taskId },
              "could not post the stop notice",
            );
          });
        } else if (!isRetryableError(error) || isLastAttempt) {
          await progress
            .finish(
              `The run failed: ${message}\n\nYou can try again with a new comment, or \`@agentforge help\`.`,
            )
            .catch((finishError: unknown) => {
              options.logger.error(
                { err: finishError, taskId: claimed.taskId },
                "could not post the failure notice",
              );
            });
        }
        throw error;
      }
    },
    {
      concurrency: options.concurrency,
      signal: options.signal,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
      logger: options.logger,
    },
  );
}
