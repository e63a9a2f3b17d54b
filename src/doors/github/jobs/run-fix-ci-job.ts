import { withCiFixMarker, type CiFixMarker } from "../commands/ci-fix-marker.js";
import { decideCiFix } from "../commands/decide-ci-fix.js";
import type { JobOutcome, JobProgress } from "./github-job.js";
import { failedOutcome, spentBy, type JobContext } from "./job-context.js";
import {
  ciFixMessages,
  requestPushedMessage,
  requestPushFailedMessage,
  runFailedMessage,
  setupFailedMessage,
  answerMessage,
} from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readFailingChecks } from "./read-failing-checks.js";
import { readPullRequest } from "./read-pull-request.js";
import { pushRequestStage } from "./stages/push-request-stage.js";
import { isFailedRun, jobAllowPrefixes, runAgentStage } from "./stages/run-agent-stage.js";
import { runSetupStage } from "./stages/run-setup-stage.js";
import { runTestStage } from "./stages/run-test-stage.js";
import { trackRunProgress } from "./track-run-progress.js";
import { jobRunModel } from "./check-model-choice.js";

/** Every text of an attempt carries its marker, so the bot's own comments count its attempts. */
function markedProgress(progress: JobProgress, marker: CiFixMarker): JobProgress {
  return {
    update: (text) => progress.update(withCiFixMarker(text, marker)),
    finish: (text) => progress.finish(withCiFixMarker(text, marker)),
  };
}

function noChange(summary: string): JobOutcome {
  return { status: "no-change", summary, totalTokens: 0, costUsd: 0 };
}

/** The bot's own login and slug as this door shows them (`agentforge[bot]`; the Action: `github-actions[bot]`). */
function ownIdentity(context: JobContext): { login: string; appSlug: string } {
  const login = context.deps.github.ownLogin ?? context.deps.github.author.name;
  return { login, appSlug: context.deps.github.mention.replace(/^@/, "") };
}

/**
 * `fix ci` on a pull request, by a person or by the bot after a red suite on its own pull request:
 * read the failing checks of the head commit (output, annotations, job log tails, all as untrusted
 * data), then the request flow on the pull request's own branch: setup, agent, tests, push there.
 */
export async function runFixCiJob(context: JobContext): Promise<JobOutcome> {
  const { job, repository, config } = context;
  const { github, report, signal } = context.deps;
  const mention = github.mention;
  const automatic = job.automatic === true;
  const own = ownIdentity(context);
  const target = { owner: job.owner, repo: job.repo, number: job.number };
  const pull = await readPullRequest(github.octokit, { ...target, fullName: repository.fullName });
  if (pull.isFromFork) {
    await report.progress.finish(ciFixMessages.fork);
    return noChange("fork: cannot push");
  }
  if (automatic) {
    // Asked again now: another red suite may have been queued meanwhile, or the branch moved.
    const decision = await decideCiFix(
      github.octokit,
      { ...target, headSha: job.headSha ?? pull.headSha },
      {
        ownLogins: [own.login],
        ownAppSlug: own.appSlug,
        branchPrefix: config.branch_prefix,
        maxAttempts: config.ci.max_fix_attempts,
        mention,
      },
    );
    if (decision.kind !== "run") {
      await report.progress.finish(
        decision.kind === "stop" ? decision.comment : ciFixMessages.notStarted(decision.reason),
      );
      return noChange(decision.kind === "stop" ? "attempts spent" : decision.reason);
    }
  }
  const progress = markedProgress(report.progress, {
    kind: automatic ? "automatic" : "requested",
    headSha: pull.headSha,
  });
  // The marker is on GitHub before any work: a crash later still counts the attempt.
  await progress.update(ciFixMessages.heading(job.number, automatic));
  const failing = await readFailingChecks(
    github.octokit,
    { owner: job.owner, repo: job.repo, ref: pull.headSha },
    { redact: report.redact, ownAppSlug: own.appSlug },
  );
  if (failing.checks.length === 0) {
    await progress.finish(ciFixMessages.nothingFails(pull.headSha, mention));
    return noChange("no failing checks");
  }
  const tracker = trackRunProgress({
    heading: ciFixMessages.heading(job.number, automatic),
    progress,
    ...(report.now ? { now: report.now } : {}),
  });
  const workspace = await prepareJobWorkspace(context.deps, {
    cloneUrl: repository.cloneUrl,
    ref: pull.headRef,
    branch: pull.headRef,
  });
  try {
    const timing = { timeoutMs: context.commandTimeoutMs, signal };
    const setup = await runSetupStage(workspace, config.setup_commands, timing);
    if (setup.kind === "failed") {
      await progress.finish(setupFailedMessage(setup.command, setup.outputTail));
      return failedOutcome("setup failed");
    }
    const result = await runAgentStage(
      context.deps.agent,
      workspace,
      {
        prompt: ciFixPrompt(
          job.number,
          repository.fullName,
          pull.headRef,
          pull.headSha,
          failing.checks.length,
        ),
        mode: "build",
        allowPrefixes: jobAllowPrefixes(config, context.deps.agent.extraAllowPrefixes ?? []),
        untrustedInputs: failing.untrustedInputs,
        ...jobRunModel(job),
        ...(config.max_turns === undefined ? {} : { maxTurns: config.max_turns }),
      },
      tracker,
      signal,
    );
    const spent = { ...spentBy(result), pullRequestNumber: job.number };
    if (isFailedRun(result)) {
      await progress.finish(runFailedMessage(result, mention));
      return failedOutcome(result.exitReason, spent);
    }
    const tests = await runTestStage(workspace, config.test_commands, timing);
    const pushed = await pushRequestStage(
      github,
      {
        job,
        repository,
        workspace,
        branch: pull.headRef,
        agentChangedFiles: result.filesChanged,
        ...(config.build_output === undefined ? {} : { buildOutputPatterns: config.build_output }),
      },
      signal,
    );
    if (!pushed.committed && pushed.error === undefined) {
      await progress.finish(answerMessage(result, mention));
      return { status: "no-change", summary: "no change for the failing checks", ...spent };
    }
    if (!pushed.pushed) {
      await progress.finish(requestPushFailedMessage(pull.headRef, pushed.error ?? "unknown error"));
      return failedOutcome("push refused", spent);
    }
    await progress.finish(requestPushedMessage(pull.headRef, pushed.sha, result, tests));
    return {
      status: "pull-request-updated",
      summary: `pushed a CI fix to ${pull.headRef}`,
      branch: pull.headRef,
      ...spent,
    };
  } finally {
    await workspace.cleanup();
  }
}

/**
 * The task. The checks' names, like everything else they report, were written by code on the
 * branch or by other apps, so they reach the model only in the fenced data, not here.
 */
export function ciFixPrompt(
  number: number,
  fullName: string,
  branch: string,
  headSha: string,
  failing: number,
): string {
  return [
    `CI fails on pull request #${number} of ${fullName} (branch ${branch}, commit ${headSha.slice(0, 7)}): ${failing} ${failing === 1 ? "check" : "checks"} failed.`,
    "",
    "What each failing check reported (its name, output, annotations and the end of its log) follows as data. Find why they fail, fix the code on this branch, and run the tests. Do not weaken or skip a test to make it pass; change CI configuration only when it is itself the fault. Finish with a short summary of the cause and the fix.",
  ].join("\n");
}
