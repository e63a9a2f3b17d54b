import type { GitHubJob, JobDependencies, JobOutcome, JobProgress } from "./github-job.js";
import { failedOutcome, type JobContext } from "./job-context.js";
import { checkModelChoice } from "./check-model-choice.js";
import { invalidConfigMessage, jobCrashedMessage, modelNotAllowedMessage } from "./job-messages.js";
import { readJobConfig, readJobRepository } from "./read-job-repository.js";
import { runFixCiJob } from "./run-fix-ci-job.js";
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
export async function runGitHubJob(job: GitHubJob, dependencies: JobDependencies): Promise<JobOutcome> {
  const report = dependencies.report;
  const deps: JobDependencies = {
    ...dependencies,
    report: { ...report, progress: redactingProgress(report.progress, report.redact) },
  };
  const { octokit } = deps.github;
  try {
    // Before any work: a model the operator does not allow ends the job with the list it does.
    const choice = checkModelChoice(job, deps.agent);
    if (!choice.success) {
      await deps.report.progress.finish(modelNotAllowedMessage(choice.error.model, choice.error.allowed));
      return failedOutcome(`model not allowed: ${choice.error.model}`);
    }
    const repository = await readJobRepository(octokit, job);
    const config = await readJobConfig(octokit, { ...job, defaultBranch: repository.defaultBranch });
    if (!config.success) {
      await deps.report.progress.finish(invalidConfigMessage(config.error));
      return failedOutcome("invalid repository config");
    }
    const context: JobContext = {
      job,
      deps,
      repository,
      config: config.value,
      commandTimeoutMs: deps.workspace.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
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
      case "fix-ci":
        return await runFixCiJob(context);
    }
  } catch (error) {
    const text = jobCrashedMessage(describeError(error), deps.signal, deps.github.mention);
    await deps.report.progress.finish(text).catch((finishError: unknown) => {
      deps.report.log?.("could not post the failure notice", { error: describeError(finishError) });
    });
    return failedOutcome(deps.signal.aborted ? "cancelled" : describeError(error));
  }
}
