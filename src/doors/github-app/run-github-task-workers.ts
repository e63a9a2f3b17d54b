import type { ProbotOctokit } from "probot";
import type { LoopEvent } from "../../core/loop/index.js";
import type { Metrics, TaskOutcome as TaskMetricOutcome } from "../../observability/create-metrics.js";
import {
  isRetryableError,
  runWorkerLoop,
  TaskAbortedError,
  type WorkerLoopSummary,
} from "../../queue/run-worker-loop.js";
import { isReportAttempt, type ClaimedTask, type JsonValue, type TaskQueue } from "../../queue/task-queue.js";
import type { InstallationBudgets } from "./budgets/create-installation-budgets.js";
import { renderBudgetComment } from "./budgets/render-budget-comment.js";
import { createProgressComment, type ProgressComment } from "../github/create-progress-comment.js";
import { defuseTaskCommentMarkers, renderTaskCommentMarker } from "./task-comment-marker.js";
import { abortReasonOf } from "../github/jobs/describe-abort.js";
import { cancelledMessage } from "../github/jobs/job-messages.js";
import { postReply } from "../github/github-replies.js";
import type { GitHubRequest } from "./github-request.js";
import type { DoorLogger } from "../github/github-logger.js";
import type { TaskHandler, TaskOutcome } from "./task-types.js";

export interface GitHubTaskWorkersOptions {
  readonly queue: TaskQueue<GitHubRequest>;
  readonly handler: TaskHandler;
  /** `(id) => probot.auth(id)`: a fresh installation token per task, never stored with it. */
  readonly getInstallationOctokit: (installationId: number) => Promise<ProbotOctokit>;
  readonly concurrency: number;
  readonly signal: AbortSignal;
  readonly redact: (text: string) => string;
  readonly logger: DoorLogger;
  /** Checked when a task is claimed (a budget may be spent since intake); usage recorded after. */
  readonly budgets?: InstallationBudgets;
  readonly metrics?: Metrics;
  readonly now?: () => number;
  readonly pollMs?: number;
  /** How often a running task's lease is renewed (the worker loop's default: 10 s). */
  readonly heartbeatMs?: number;
  readonly workerId?: string;
}

/** A full concurrency budget at claim time: the task goes back to the queue and is tried later. */
export class BudgetSlotBusyError extends Error {
  override readonly name = "BudgetSlotBusyError";
  readonly code = "BUDGET_SLOT_BUSY";
  readonly retryable = true;
  constructor(installationId: number) {
    super(`installation ${installationId} runs as many tasks as its budget allows; retrying later`);
  }
}

/** How often a running task renews its concurrency slot (slots expire so a dead worker frees them). */
const SLOT_RENEWAL_MS = 10 * 60 * 1000;

/** Sums what a run spent, from its model calls, so a failed run is charged as well as a finished one. */
function createUsageMeter(metrics: Metrics | undefined) {
  const usage = { tokens: 0, costUsd: 0 };
  return {
    usage,
    observe: (event: LoopEvent): void => {
      metrics?.observeLoopEvent(event);
      if (event.type !== "model-call-end") return;
      usage.tokens += event.usage.promptTokens + event.usage.completionTokens;
      // A call without a known price cannot be charged to a cost budget; its tokens still are.
      usage.costUsd += event.costUsd ?? 0;
    },
  };
}

/** Where the engine carries a value with a running task (Redis), the handler may store one. */
function handOverSaverFor(
  queue: TaskQueue<GitHubRequest>,
  claimed: ClaimedTask<GitHubRequest>,
): ((value: JsonValue) => Promise<boolean>) | undefined {
  const save = queue.saveHandOver?.bind(queue);
  return save === undefined ? undefined : (value) => save(claimed, value);
}

/** A handler that returns has still not always done the work: its status says what happened. */
function outcomeOfResult(outcome: TaskOutcome): TaskMetricOutcome {
  switch (outcome.status) {
    case "failed":
      return "failed";
    case "budget-spent":
      return "refused";
    case "pull-request-opened":
    case "pull-request-updated":
    case "plan-posted":
    case "review-posted":
    case "answered":
    case "no-change":
      return "completed";
  }
}

/**
 * After a cancel with a reason (a newer push or command), the comment's last word starts with
 * that reason, whatever the job was doing when it stopped ("The run was stopped." says less).
 */
function withCancelReason(progress: ProgressComment, signal: AbortSignal): ProgressComment {
  return {
    start: (text) => progress.start(text),
    update: (text) => progress.update(text),
    idle: () => progress.idle(),
    get commentId() {
      return progress.commentId;
    },
    finish: (text) => {
      const why = abortReasonOf(signal);
      const notice = why === null ? null : cancelledMessage(why);
      return progress.finish(notice === null || text.startsWith(notice) ? text : `${notice}\n\n${text}`);
    },
  };
}

function isLeaseLost(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof TaskAbortedError && signal.reason.code === "LEASE_LOST";
}

function outcomeOfFailure(error: unknown, signal: AbortSignal, isLastAttempt: boolean): TaskMetricOutcome {
  if (signal.aborted) return isLeaseLost(signal) ? "lease-lost" : "cancelled";
  return isRetryableError(error) && !isLastAttempt ? "retried" : "failed";
}

/**
 * The seam between the queue and the task handler: checks the installation's budget, authenticates
 * as the installation, gives the handler one progress comment, records metrics and spending, and
 * makes sure a task that throws still ends with a comment saying so, since a silent failure is the
 * one outcome a person cannot act on.
 */
export function runGitHubTaskWorkers(options: GitHubTaskWorkersOptions): Promise<WorkerLoopSummary> {
  const { budgets, metrics, logger } = options;
  const now = options.now ?? Date.now;

  async function refuseForBudget(claimed: ClaimedTask<GitHubRequest>, octokit: ProbotOctokit) {
    const task = claimed.payload;
    const slot = budgets === undefined ? null : await budgets.startTask(task.installationId, claimed.taskId);
    if (slot === null || slot.allowed) return null;
    if (slot.reason === "concurrent-tasks") throw new BudgetSlotBusyError(task.installationId);
    const source = { kind: "issue" as const, owner: task.owner, repo: task.repo, issueNumber: task.number };
    await postReply(octokit, source, renderBudgetComment(slot, new Date(now())), (text) =>
      defuseTaskCommentMarkers(options.redact(text)),
    );
    logger.info({ taskId: claimed.taskId, reason: slot.reason }, "budget spent: claimed task not run");
    const outcome: TaskOutcome = { status: "budget-spent", summary: `budget spent (${slot.reason})` };
    return outcome;
  }

  async function runTask(claimed: ClaimedTask<GitHubRequest>, signal: AbortSignal): Promise<TaskOutcome> {
    const task = claimed.payload;
    // Its timestamp starts a task's time to first action on the worker (docs/performance.md).
    logger.info({ taskId: claimed.taskId, attempt: claimed.attempt }, "task claimed");
    const octokit = await options.getInstallationOctokit(task.installationId);
    // A report attempt only tells the requester the work was given up: no budget is spent on it.
    const refused = isReportAttempt(claimed) ? null : await refuseForBudget(claimed, octokit);
    if (refused !== null) {
      metrics?.recordTask("refused", 0);
      return refused;
    }
    const startedAt = now();
    const meter = createUsageMeter(metrics);
    const renewal =
      budgets === undefined
        ? undefined
        : setInterval(() => {
            budgets.startTask(task.installationId, claimed.taskId).catch((error: unknown) => {
              logger.warn({ err: error, taskId: claimed.taskId }, "could not renew the budget slot");
            });
          }, SLOT_RENEWAL_MS);
    const saveHandOver = handOverSaverFor(options.queue, claimed);
    const progress = createProgressComment(octokit, {
      owner: task.owner,
      repo: task.repo,
      issueNumber: task.number,
      // A command written in a review thread is answered in that thread.
      ...(task.trigger === "review-comment" && task.commentId !== null
        ? { replyTo: { commentId: task.commentId } }
        : {}),
      redact: (text) => defuseTaskCommentMarkers(options.redact(text)),
      // Names the task, so a later attempt finds the comment its dead worker never recorded.
      marker: renderTaskCommentMarker(claimed.taskId),
      logger,
    });
    try {
      const outcome = await options.handler(claimed, {
        octokit,
        signal,
        progress: withCancelReason(progress, signal),
        onLoopEvent: meter.observe,
        ...(saveHandOver === undefined ? {} : { saveHandOver }),
      });
      if (signal.aborted && !isLeaseLost(signal)) {
        // The job ended its own comment with the reason; the queue already marked it cancelled.
        logger.info({ taskId: claimed.taskId, reason: abortReasonOf(signal) ?? "stop" }, "task cancelled");
        metrics?.recordTask("cancelled", now() - startedAt);
        return outcome;
      }
      metrics?.recordTask(outcomeOfResult(outcome), now() - startedAt);
      return outcome;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const isLastAttempt = claimed.attempt >= claimed.maxAttempts;
      metrics?.recordTask(outcomeOfFailure(error, signal, isLastAttempt), now() - startedAt);
      if (isLeaseLost(signal)) {
        // Another worker holds the task now and says so in its own comment ("picking this up
        // again"); a stop notice here would tell the person something that did not happen.
        logger.warn({ taskId: claimed.taskId }, "lease lost: the task continues on another worker");
      } else if (signal.aborted) {
        const why = abortReasonOf(signal);
        logger.info({ taskId: claimed.taskId, reason: why ?? "stop" }, "task cancelled");
        await progress
          .finish(why === null ? "Stopped on request." : cancelledMessage(why))
          .catch((finishError: unknown) => {
            logger.warn({ err: finishError, taskId: claimed.taskId }, "could not post the stop notice");
          });
      } else if (!isRetryableError(error) || isLastAttempt) {
        await progress
          .finish(
            `The run failed: ${message}\n\nYou can try again with a new comment, or \`@agentforge help\`.`,
          )
          .catch((finishError: unknown) => {
            logger.error({ err: finishError, taskId: claimed.taskId }, "could not post the failure notice");
          });
      }
      throw error;
    } finally {
      clearInterval(renewal);
      if (budgets !== undefined) {
        await budgets.record(task.installationId, meter.usage).catch((error: unknown) => {
          logger.error(
            { err: error, taskId: claimed.taskId, usage: meter.usage },
            "could not record spending",
          );
        });
        await budgets.finishTask(task.installationId, claimed.taskId).catch((error: unknown) => {
          logger.warn({ err: error, taskId: claimed.taskId }, "could not free the budget slot");
        });
      }
    }
  }

  return runWorkerLoop(
    options.queue,
    async (claimed, { signal }) => ({ ...(await runTask(claimed, signal)) }) satisfies JsonValue,
    {
      concurrency: options.concurrency,
      signal: options.signal,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
      logger,
    },
  );
}
