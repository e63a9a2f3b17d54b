import type { JobOutcome } from "./github-job.js";
import { failedOutcome, spentBy, withoutRecovery, type JobContext } from "./job-context.js";
import {
  answerMessage,
  FORK_NOTE,
  jobHeadings,
  requestPushedMessage,
  requestPushFailedMessage,
  runFailedMessage,
  setupFailedMessage,
} from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readConversation } from "./read-conversation.js";
import { readPullRequest } from "./read-pull-request.js";
import { pushRequestStage } from "./stages/push-request-stage.js";
import { isFailedRun, jobAllowPrefixes, runAgentStage } from "./stages/run-agent-stage.js";
import { runSetupStage } from "./stages/run-setup-stage.js";
import { runTestStage } from "./stages/run-test-stage.js";
import { trackRunProgress } from "./track-run-progress.js";
import { jobRunModel } from "./check-model-choice.js";

/**
 * A free-form request on a pull request. On a branch of this repository: checkout of the branch,
 * setup, agent, tests, and the change pushed to the same branch (no new pull request); when
 * nothing changed, the answer is the reply. On a fork's pull request it only reads and answers:
 * no setup command runs and nothing is pushed.
 */
export async function runRequestJob(context: JobContext): Promise<JobOutcome> {
  const { job, repository, config } = context;
  const { github, report, signal } = context.deps;
  const mention = github.mention;
  const tracker = trackRunProgress({
    heading: jobHeadings.request(job.number),
    progress: report.progress,
    ...(report.now ? { now: report.now } : {}),
  });
  const target = { owner: job.owner, repo: job.repo, number: job.number };
  const pull = await readPullRequest(github.octokit, { ...target, fullName: repository.fullName });
  const conversation = await readConversation(
    github.octokit,
    { ...target, requester: job.requester },
    { allowedBots: config.allowed_bots },
  );
  const request = (job.instructions ?? conversation.requestText).trim();
  const prompt = [
    `@${job.requester} asks, on pull request #${job.number} of ${repository.fullName} (branch ${pull.headRef}):`,
    "",
    request,
    "",
    ...(job.thread === undefined
      ? []
      : [
          `They wrote it in a review thread on \`${job.thread.path}\`${job.thread.line === null ? "" : ` line ${job.thread.line}`} (the pull request's version of the file); "this" means that place.`,
          "",
        ]),
    pull.isFromFork
      ? "Answer the request by reading the code; you cannot change anything."
      : "If the request asks for a change, make it and run the tests; otherwise answer it. Finish with a short summary or the answer.",
  ].join("\n");
  const deps = pull.isFromFork ? withoutRecovery(context.deps) : context.deps;
  const workspace = await prepareJobWorkspace(
    deps,
    pull.isFromFork
      ? { cloneUrl: repository.cloneUrl, ref: pull.headSha, fetchRefs: [`refs/pull/${job.number}/head`] }
      : { cloneUrl: repository.cloneUrl, ref: pull.headRef, branch: pull.headRef },
  );
  try {
    const timing = { timeoutMs: context.commandTimeoutMs, signal };
    const setup = pull.isFromFork
      ? { kind: "skipped" as const }
      : await runSetupStage(workspace, config.setup_commands, timing);
    if (setup.kind === "failed") {
      await report.progress.finish(setupFailedMessage(setup.command, setup.outputTail));
      return failedOutcome("setup failed");
    }
    const result = await runAgentStage(
      deps.agent,
      workspace,
      {
        prompt,
        mode: pull.isFromFork ? "plan" : "build",
        allowPrefixes: pull.isFromFork ? [] : jobAllowPrefixes(config, deps.agent.extraAllowPrefixes ?? []),
        untrustedInputs: conversation.untrustedInputs,
        ...jobRunModel(job),
        ...(config.max_turns === undefined ? {} : { maxTurns: config.max_turns }),
      },
      tracker,
      signal,
    );
    const spent = { ...spentBy(result), pullRequestNumber: job.number };
    if (isFailedRun(result)) {
      await report.progress.finish(runFailedMessage(result, mention));
      return failedOutcome(result.exitReason, spent);
    }
    if (pull.isFromFork) {
      await report.progress.finish(answerMessage(result, mention, FORK_NOTE));
      return { status: "answered", summary: "answered (fork)", ...spent };
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
      await report.progress.finish(answerMessage(result, mention));
      return { status: "answered", summary: "answered", ...spent };
    }
    if (!pushed.pushed) {
      await report.progress.finish(requestPushFailedMessage(pull.headRef, pushed.error ?? "unknown error"));
      return failedOutcome("push refused", spent);
    }
    await report.progress.finish(requestPushedMessage(pull.headRef, pushed.sha, result, tests));
    return {
      status: "pull-request-updated",
      summary: `pushed to ${pull.headRef}`,
      branch: pull.headRef,
      ...spent,
    };
  } finally {
    await workspace.cleanup();
  }
}
