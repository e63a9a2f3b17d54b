import { REPOSITORY_CONFIG_PATH } from "../repository-config.js";
import type { GitHubJob, GitHubJobDependencies, GitHubJobOutcome, JobProgress } from "./github-job.js";
import { failedOutcome, type JobContext } from "./job-context.js";
import { readJobConfig, readJobRepository } from "./read-job-repository.js";
import { runFixJob } from "./run-fix-job.js";
import { runPlanJob } from "./run-plan-job.js";
import { runRequestJob } from "./run-request-job.js";
import { runReviewJob } from "./run-review-job.js";

const DEFAULT_COMMAND_TIMEOUT_MS = 10 * 60_000;

/** Every text a job posts goes through the redaction gate here, whatever the door's progress does. */
function redactingProgress(progress: JobProgress, redact: (text: string) => string): JobProgress {
  return {
    update: (text) => progress.update(redact(text)),
    finish: (text) => progress.finish(redact(text)),
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one GitHub job (fix, plan, review, request) for the App or the Action. Whatever happens,
 * the progress comment ends with what happened and what the person can do next; an unexpected
 * error is reported there and returned as a `failed` outcome rather than thrown, so a door never
 * leaves a silent failure behind.
 */
export async function runGitHubJob(
  job: GitHubJob,
  dependencies: GitHubJobDependencies,
): Promise<GitHubJobOutcome> {
  const deps: GitHubJobDependencies = {
    ...dependencies,
    progress: redactingProgress(dependencies.progress, dependencies.redact),
  };
  try {
    const repository = await readJobRepository(deps.octokit, job);
    const config = await readJobConfig(deps.octokit, { ...job, defaultBranch: repository.defaultBranch });
    if (!config.success) {
      await deps.progress.finish(
        `❌ I did not start: \`${REPOSITORY_CONFIG_PATH}\` on the default branch is not valid.\n\n${config.error
          .split("\n")
          .map((line) => `- ${line}`)
          .join("\n")}`,
      );
      return failedOutcome("invalid repository config");
    }
    const context: JobContext = {
      job,
      deps,
      repository,
      config: config.value,
      commandTimeoutMs: deps.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    };
    switch (job.kind) {
      case "fix":
        return await runFixJob(context);
      case "plan":
        return await runPlanJob(context);
      case "review":
        return await runReviewJob(context);
      case "request":
        return await runRequestJob(context);
    }
  } catch (error) {
    const text = deps.signal.aborted
      ? "⏹️ Stopped. Nothing more will happen for this request."
      : `❌ The run failed: ${describeError(error)}\n\nYou can try again with a new comment, or \`@agentforge help\`.`;
    await deps.progress.finish(text).catch((finishError: unknown) => {
      deps.log?.("could not post the failure notice", { error: describeError(finishError) });
    });
    return failedOutcome(deps.signal.aborted ? "cancelled" : describeError(error));
  }
}
