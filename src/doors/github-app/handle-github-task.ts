import type { ResumableAgentRunner } from "../../core/create-agent-runner.js";
import type { LoopEvent, LoopEventListener } from "../../core/loop/loop-events.js";
import type { ModelClient } from "../../core/model/model-types.js";
import type { CommandRunner } from "../../core/tools/tool.js";
import type { GitHubJob, GitHubJobOutcome } from "../github/jobs/github-job.js";
import { runGitHubJob } from "../github/jobs/run-github-job.js";
import { openTaskRecordStore } from "../github/jobs/task-record-store.js";
import type { RepositoryCache } from "../github/workspace/create-repository-cache.js";
import type { GitIdentity } from "../github/workspace/commit-and-push.js";
import { resolveCoAuthor } from "../github/jobs/resolve-co-author.js";
import type { DoorLogger } from "../github/github-logger.js";
import type { QueuedTask, TaskHandler, TaskHandoff, TaskOutcome } from "./task-types.js";
import { readCarriedRun, type CarriedRun } from "../github/jobs/carried-run.js";
import { createCarriedRunWriter } from "./create-carried-run-writer.js";

export interface GitHubTaskHandlerOptions {
  readonly runner: ResumableAgentRunner;
  /** For the reviewer subagents. */
  readonly model?: ModelClient;
  readonly commandRunner: CommandRunner;
  /** One cache for every task of this process (a bare mirror per repository). */
  readonly cache: RepositoryCache;
  /** Holds `tasks/` (records and traces of running tasks). */
  readonly dataDir: string;
  /** The app's slug; commits are authored by `slug[bot]` with its no-reply address. */
  readonly appSlug: string;
  readonly operatorAllowPrefixes: readonly string[];
  readonly logger: DoorLogger;
  readonly commandTimeoutMs?: number;
  /**
   * A fresh installation token for git. Default: the installation Octokit's own auth. The server
   * passes one that asks `POST /app/installations/{id}/access_tokens` with the app's JWT, which
   * follows the configured API base (GitHub Enterprise, the test stand-in) in every case.
   */
  readonly getInstallationToken?: (installationId: number) => Promise<string>;
  /** How often a running task stores its run with the queue for another worker (default 10 s). */
  readonly handoffIntervalMs?: number;
}

/** The queue's record says what was asked; the job says what to do. */
export function toGitHubJob(task: QueuedTask): GitHubJob {
  const base = {
    owner: task.owner,
    repo: task.repo,
    number: task.number,
    isPullRequest: task.isPullRequest,
    requester: task.requester,
    ...(task.headSha === null ? {} : { headSha: task.headSha }),
    ...(task.beforeSha === null ? {} : { beforeSha: task.beforeSha }),
    ...(task.commentId === null ? {} : { commentId: task.commentId }),
  };
  const command = task.command;
  switch (command.kind) {
    case "fix":
    case "plan":
      return {
        ...base,
        kind: command.kind,
        ...(command.instructions === undefined ? {} : { instructions: command.instructions }),
      };
    case "review":
      return { ...base, kind: "review" };
    case "request":
      return { ...base, kind: "request", instructions: command.text };
  }
}

function toTaskOutcome(outcome: GitHubJobOutcome): TaskOutcome {
  return {
    status: outcome.status,
    summary: outcome.summary,
    totalTokens: outcome.totalTokens,
    costUsd: outcome.costUsd,
    ...(outcome.url === undefined ? {} : { url: outcome.url }),
    ...(outcome.pullRequestNumber === undefined ? {} : { pullRequestNumber: outcome.pullRequestNumber }),
  };
}

/** The same runner, with every loop event also shown to `observe` (after the caller's own listener). */
export function withLoopObserver(
  runner: ResumableAgentRunner,
  observe: ((event: LoopEvent) => void) | undefined,
): ResumableAgentRunner {
  if (observe === undefined) return runner;
  const tee =
    (listener: LoopEventListener | undefined): LoopEventListener =>
    (event) => {
      observe(event);
      return listener?.(event);
    };
  return {
    redactor: runner.redactor,
    store: runner.store,
    run: (task, options) => runner.run(task, { ...options, onEvent: tee(options?.onEvent) }),
    resume: (runId, options) => runner.resume(runId, { ...options, onEvent: tee(options?.onEvent) }),
  };
}

const tokenResponse = (value: unknown): string => {
  if (typeof value === "object" && value !== null && "token" in value && typeof value.token === "string")
    return value.token;
  throw new Error("the installation token could not be read from the auth response");
};

/**
 * The App's task handler: one queued task → one GitHub job. It gets a fresh installation token for
 * git (added to the redactor's exact secrets before any use), starts the progress comment, and
 * keeps a small record per task so a worker that picks the task up after a crash resumes the
 * run where it stopped and closes the comment the dead worker left open.
 */
export function createGitHubTaskHandler(options: GitHubTaskHandlerOptions): TaskHandler {
  const redactor = options.runner.redactor;
  const redact = (text: string): string => redactor.redact(text);
  // The bot user's id is readable only as an installation; looked up once, on the first task.
  let author: GitIdentity | null = null;
  return async (task, context) => {
    const record = openTaskRecordStore(options.dataDir, task.taskId);
    const previous = task.attempt > 1 ? await record.load() : null;
    if (task.attempt === 1) await record.remove();
    // A task a worker on another machine started: continue its run from what it stored with the task.
    const carriedRun =
      task.attempt > 1 && previous === null && context.handoff !== undefined
        ? await readStoredRun(context.handoff, options.logger, task.taskId)
        : undefined;
    const interruptedCommentId = previous?.progressCommentId ?? carriedRun?.progressCommentId ?? null;
    const getToken = async (): Promise<string> => {
      const token =
        options.getInstallationToken === undefined
          ? tokenResponse(await context.octokit.auth({ type: "installation" }))
          : await options.getInstallationToken(task.installationId);
      redactor.addSecret(token);
      return token;
    };
    // The token is fetched (and registered as a secret) before anything can print it.
    await getToken();
    if (interruptedCommentId !== null) {
      await context.octokit
        .request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
          owner: task.owner,
          repo: task.repo,
          comment_id: interruptedCommentId,
          body: "⏸️ This run was interrupted (the worker stopped); it continues in a new comment below.",
        })
        .catch((error: unknown) =>
          options.logger.warn(
            { err: error, taskId: task.taskId },
            "could not close the interrupted progress comment",
          ),
        );
    }
    await context.progress.start(
      previous === null && carriedRun === undefined
        ? "👀 Working on it…"
        : "👀 Picking this up again after an interruption…",
    );
    await record.update({ progressCommentId: context.progress.commentId });
    author ??= await resolveCoAuthor(context.octokit, `${options.appSlug}[bot]`);
    const carrier =
      context.handoff === undefined
        ? undefined
        : createCarriedRunWriter({
            handoff: context.handoff,
            record,
            store: options.runner.store,
            logger: options.logger,
            taskId: task.taskId,
            ...(options.handoffIntervalMs === undefined ? {} : { intervalMs: options.handoffIntervalMs }),
          });
    const observe = (event: LoopEvent): void => {
      context.onLoopEvent?.(event);
      carrier?.observe(event);
    };
    let outcome: GitHubJobOutcome;
    try {
      outcome = await runGitHubJob(toGitHubJob(task), {
        octokit: context.octokit,
        getToken,
        runner: withLoopObserver(options.runner, observe),
        ...(carriedRun === undefined ? {} : { carriedRun }),
        cache: options.cache,
        commandRunner: options.commandRunner,
        author,
        progress: {
          update: (text) => context.progress.update(text),
          finish: (text) => context.progress.finish(text),
        },
        redact,
        signal: context.signal,
        operatorAllowPrefixes: options.operatorAllowPrefixes,
        tracePath: record.tracePath,
        workspaceStore: record.workspaceStore,
        log: (message, details) => options.logger.info({ ...details, taskId: task.taskId }, message),
        ...(options.model === undefined ? {} : { model: options.model }),
        ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
      });
    } finally {
      // A failed job must not leave a capture writing to the queue after the task ended.
      await carrier?.settle();
    }
    await record.remove();
    options.logger.info(
      { taskId: task.taskId, status: outcome.status, summary: outcome.summary },
      "task finished",
    );
    return toTaskOutcome(outcome);
  };
}

/** The run another worker stored with the task, or undefined (then the task starts over). */
async function readStoredRun(
  handoff: TaskHandoff,
  logger: DoorLogger,
  taskId: string,
): Promise<CarriedRun | undefined> {
  let stored: unknown;
  try {
    stored = await handoff.load();
  } catch (error) {
    logger.warn({ err: error, taskId }, "could not read the run stored with the task; starting over");
    return undefined;
  }
  if (stored === null) return undefined;
  const read = readCarriedRun(stored);
  if (read.success) return read.value;
  logger.warn({ taskId, reason: read.error }, "the run stored with the task cannot be used; starting over");
  return undefined;
}
