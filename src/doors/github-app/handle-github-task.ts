import type { AgentRunner } from "../../core/agent-run.js";
import type { LoopEvent, LoopEventListener } from "../../core/loop/index.js";
import type { ModelClient } from "../../core/model/index.js";
import type { CommandRunner } from "../../core/tools/index.js";
import type { JobOutcome } from "../github/jobs/github-job.js";
import { runGitHubJob } from "../github/jobs/run-github-job.js";
import { openJobRecordStore } from "../github/jobs/job-record-store.js";
import type { RepositoryCache } from "../github/workspace/create-repository-cache.js";
import type { GitIdentity } from "../github/workspace/commit-and-push.js";
import { resolveCoAuthor } from "../github/jobs/resolve-co-author.js";
import type { DoorLogger } from "../github/github-logger.js";
import { isReportAttempt, type JsonValue } from "../../queue/task-queue.js";
import type { GitHubTask, TaskHandler, TaskHandlerContext } from "./task-types.js";
import { readHandOver, type HandOver } from "../github/jobs/hand-over.js";
import { createHandOverWriter } from "./create-hand-over-writer.js";
import { toGitHubJob } from "./to-github-job.js";
import { toTaskOutcome } from "./to-task-outcome.js";
import { startProgressBeside } from "./start-progress-beside.js";
import { findTaskProgressComment } from "./find-task-progress-comment.js";
import {
  defuseTaskCommentMarkers,
  renderTaskCommentMarker,
  withTaskCommentMarker,
} from "./task-comment-marker.js";

/** How long a task reuses its installation token for git before it asks for a new one. */
const TOKEN_REUSE_MS = 30 * 60_000;

export interface GitHubTaskHandlerOptions {
  readonly runner: AgentRunner;
  /** For the reviewer subagents. */
  readonly model?: ModelClient;
  /** The models a command may choose (`… with <model>`); without it only `model` may be chosen. */
  readonly allowedModels?: readonly string[];
  /** The client of a chosen model, for a review's panel (the runner makes its own for runs). */
  readonly modelFor?: (name: string) => ModelClient;
  readonly commandRunner: CommandRunner;
  /** One cache for every task of this process (a bare mirror per repository). */
  readonly cache: RepositoryCache;
  /** Holds `tasks/` (records and traces of running tasks). */
  readonly dataDir: string;
  /** The app's slug; commits are authored by `slug[bot]` with its no-reply address. */
  readonly appSlug: string;
  readonly logger: DoorLogger;
  readonly commandTimeoutMs?: number;
  /**
   * A fresh installation token for git. Default: the installation Octokit's own auth. The server
   * passes one that asks `POST /app/installations/{id}/access_tokens` with the app's JWT, which
   * follows the configured API base (GitHub Enterprise, the test stand-in) in every case.
   */
  readonly getInstallationToken?: (installationId: number) => Promise<string>;
  /** How often a running task hands its run over to the queue for another worker (default 10 s). */
  readonly handOverIntervalMs?: number;
}

/** The same runner, with every loop event also shown to `observe` (after the caller's own listener). */
export function withLoopObserver(
  runner: AgentRunner,
  observe: ((event: LoopEvent) => void) | undefined,
): AgentRunner {
  if (observe === undefined) return runner;
  const tee =
    (listener: LoopEventListener | undefined): LoopEventListener =>
    (event) => {
      observe(event);
      return listener?.(event);
    };
  return {
    ...runner,
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
  // What the job posts is the model's text too: no marker in it may pass for a task's.
  const redact = (text: string): string => defuseTaskCommentMarkers(options.runner.redact(text));
  // The bot user's id is readable only as an installation; looked up once, on the first task.
  let author: GitIdentity | null = null;
  return async (task, context) => {
    const record = openJobRecordStore(options.dataDir, task.taskId);
    const previous = task.attempt > 1 ? await record.load() : null;
    if (task.attempt === 1) await record.remove();
    // A task a worker on another machine started: continue its run from what it handed over.
    const handOver =
      task.attempt > 1 && previous === null
        ? readStoredHandOver(task.handOver, options.logger, task.taskId)
        : undefined;
    const recordedCommentId = previous?.progressCommentId ?? handOver?.progressCommentId ?? null;
    // The dead worker may have posted its comment and died before recording it (the record then
    // holds none, or an earlier attempt's): the newest comment with the task's marker is its own.
    const interruptedCommentId =
      task.attempt === 1
        ? recordedCommentId
        : ((await findTaskProgressComment(
            context.octokit,
            {
              owner: task.payload.owner,
              repo: task.payload.repo,
              number: task.payload.number,
              taskId: task.taskId,
              appSlug: options.appSlug,
              isThreadReply: isThreadReply(task.payload),
              enqueuedAt: task.enqueuedAt,
            },
            options.logger,
          )) ?? recordedCommentId);
    const marker = renderTaskCommentMarker(task.taskId);
    // One token serves the task's git for a while (GitHub's last an hour): asking again for the
    // checkout would put another app-wide write, paced a second apart, before the first action.
    let lastToken: { readonly value: string; readonly at: number } | null = null;
    const getToken = async (): Promise<string> => {
      if (lastToken !== null && Date.now() - lastToken.at < TOKEN_REUSE_MS) return lastToken.value;
      const at = Date.now();
      const token =
        options.getInstallationToken === undefined
          ? tokenResponse(await context.octokit.auth({ type: "installation" }))
          : await options.getInstallationToken(task.payload.installationId);
      options.runner.addSecret(token);
      lastToken = { value: token, at };
      return token;
    };
    if (isReportAttempt(task)) {
      // The last attempt's worker stopped without a word: say so, where the person looks.
      const text = givenUpText(task.maxAttempts, options.appSlug);
      const closed =
        interruptedCommentId !== null &&
        (await editComment(
          context.octokit,
          task.payload,
          interruptedCommentId,
          withTaskCommentMarker(text, marker),
        ).then(
          () => true,
          (error: unknown) => {
            options.logger.warn(
              { err: error, taskId: task.taskId },
              "could not close the interrupted comment",
            );
            return false;
          },
        ));
      if (!closed) await context.progress.finish(text);
      await record.remove();
      options.logger.warn(
        { taskId: task.taskId, attempts: task.maxAttempts },
        "task given up: its workers stopped",
      );
      return {
        status: "failed",
        summary: `given up: the worker stopped on each of ${task.maxAttempts} attempts`,
      };
    }
    // The token is fetched (and registered as a secret) before anything can print it.
    await getToken();
    const beside = startProgressBeside(
      async () => {
        if (interruptedCommentId !== null) {
          await editComment(
            context.octokit,
            task.payload,
            interruptedCommentId,
            withTaskCommentMarker(
              "⏸️ This run was interrupted (the worker stopped); it continues in a new comment below.",
              marker,
            ),
          ).catch((error: unknown) =>
            options.logger.warn(
              { err: error, taskId: task.taskId },
              "could not close the interrupted progress comment",
            ),
          );
        }
        await context.progress.start(
          previous === null && handOver === undefined && interruptedCommentId === null
            ? "👀 Working on it…"
            : "👀 Picking this up again after an interruption…",
        );
        await record.update({ progressCommentId: context.progress.commentId });
      },
      { update: (text) => context.progress.update(text), finish: (text) => context.progress.finish(text) },
      context.signal,
    );
    try {
      author ??= await resolveCoAuthor(context.octokit, `${options.appSlug}[bot]`);
    } catch (error) {
      await beside.settled();
      throw error;
    }
    const carrier =
      context.saveHandOver === undefined
        ? undefined
        : createHandOverWriter({
            saveHandOver: context.saveHandOver,
            record,
            runner: options.runner,
            logger: options.logger,
            taskId: task.taskId,
            ...(options.handOverIntervalMs === undefined ? {} : { intervalMs: options.handOverIntervalMs }),
          });
    const observe = (event: LoopEvent): void => {
      context.onLoopEvent?.(event);
      carrier?.observe(event);
    };
    let outcome: JobOutcome;
    try {
      outcome = await runGitHubJob(toGitHubJob(task.payload), {
        github: {
          octokit: context.octokit,
          getToken,
          author,
          mention: `@${options.appSlug}`,
        },
        workspace: {
          cache: options.cache,
          commandRunner: options.commandRunner,
          store: record.workspaceStore,
          ...(handOver === undefined ? {} : { handOver }),
          ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
        },
        agent: {
          runner: withLoopObserver(options.runner, observe),
          tracePath: record.tracePath,
          ...(options.model === undefined ? {} : { model: options.model }),
          ...(options.allowedModels === undefined ? {} : { allowedModels: options.allowedModels }),
          ...(options.modelFor === undefined ? {} : { modelFor: options.modelFor }),
        },
        report: {
          progress: beside.progress,
          redact,
          log: (message, details) => options.logger.info({ ...details, taskId: task.taskId }, message),
        },
        signal: beside.signal,
      });
    } finally {
      // A failed job must not leave a capture writing to the queue after the task ended.
      await carrier?.settle();
      // Nor a comment still being started: the caller's failure notice must come after it.
      await beside.settled();
    }
    const startError = await beside.settled();
    if (startError !== null) {
      // The job was stopped (or ended) with no comment to speak in: the start's error is the
      // task's, reported once by the worker loop as any failed task is.
      options.logger.warn(
        { taskId: task.taskId, jobStatus: outcome.status, jobSummary: outcome.summary },
        "the progress comment could not be started",
      );
      throw startError;
    }
    await record.remove();
    options.logger.info(
      { taskId: task.taskId, status: outcome.status, summary: outcome.summary },
      "task finished",
    );
    return toTaskOutcome(outcome);
  };
}

/** What a task given up after its workers stopped says in its conversation. */
export function givenUpText(attempts: number, appSlug: string): string {
  const times = attempts === 1 ? "" : ` on each of its ${attempts} attempts`;
  return (
    `❌ Given up: the worker running this stopped${times} before it finished (a crash, a restart or a lost machine), so it is not tried again and nothing was published. ` +
    `Ask again with a new comment (\`@${appSlug} help\` lists the commands).`
  );
}

/** Whether the task answers in a review thread (as `runGitHubTaskWorkers` posts its comment). */
function isThreadReply(payload: GitHubTask["payload"]): boolean {
  return payload.trigger === "review-comment" && payload.commentId !== null;
}

/** A progress comment is an issue comment, or a review-comment reply when the command came from a thread. */
function editComment(
  octokit: TaskHandlerContext["octokit"],
  payload: GitHubTask["payload"],
  commentId: number,
  body: string,
): Promise<unknown> {
  const where = { owner: payload.owner, repo: payload.repo, comment_id: commentId, body };
  return isThreadReply(payload)
    ? octokit.request("PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}", where)
    : octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", where);
}

/** The hand-over another worker stored with the task, or undefined (then the task starts over). */
function readStoredHandOver(
  stored: JsonValue | null,
  logger: DoorLogger,
  taskId: string,
): HandOver | undefined {
  if (stored === null) return undefined;
  const read = readHandOver(stored);
  if (read.success) return read.value;
  logger.warn(
    { taskId, reason: read.error },
    "the run handed over with the task cannot be used; starting over",
  );
  return undefined;
}
