import { runSetupCommands } from "../../../core/sandbox/run-setup-commands.js";
import { commitAndPush } from "../workspace/commit-and-push.js";
import type { GitHubJobOutcome } from "./github-job.js";
import { failedOutcome, withoutResume, type JobContext } from "./job-context.js";
import { explainExitReason, usageLine } from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readConversation } from "./read-conversation.js";
import { readPullRequest } from "./read-pull-request.js";
import { resolveCoAuthor } from "./resolve-co-author.js";
import { jobAllowPrefixes, runJobAgent } from "./run-job-agent.js";
import { runTestCommands } from "./run-test-commands.js";
import { trackRunProgress } from "./track-run-progress.js";

const FORK_NOTE =
  "This pull request comes from a fork, so I only read it and answer: I cannot push to a fork's branch, and code from a fork never runs where a token could be reached.";

/**
 * A free-form request on a pull request. On a branch of this repository the agent may change it
 * and the result is pushed to the same branch (no new pull request); when nothing changed, its
 * answer is the reply. On a fork's pull request it only reads and answers.
 */
export async function runRequestJob(context: JobContext): Promise<GitHubJobOutcome> {
  const { job, deps, repository, config } = context;
  const { owner, repo } = job;
  const tracker = trackRunProgress({
    heading: `👀 Working on your request on #${job.number}…`,
    progress: deps.progress,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const pull = await readPullRequest(deps.octokit, {
    owner,
    repo,
    number: job.number,
    fullName: repository.fullName,
  });
  const conversation = await readConversation(deps.octokit, {
    owner,
    repo,
    number: job.number,
    requester: job.requester,
  });
  const request = (job.instructions ?? conversation.requestText).trim();
  const prompt = [
    `@${job.requester} asks, on pull request #${job.number} of ${repository.fullName} (branch ${pull.headRef}):`,
    "",
    request,
    "",
    pull.isFromFork
      ? "Answer the request by reading the code; you cannot change anything."
      : "If the request asks for a change, make it and run the tests; otherwise answer it. Finish with a short summary or the answer.",
  ].join("\n");
  const workspace = await prepareJobWorkspace(
    pull.isFromFork ? withoutResume(deps) : deps,
    pull.isFromFork
      ? { cloneUrl: repository.cloneUrl, ref: pull.headSha, fetchRefs: [`refs/pull/${job.number}/head`] }
      : { cloneUrl: repository.cloneUrl, ref: pull.headRef, branch: pull.headRef },
  );
  try {
    if (!pull.isFromFork && workspace.resumeRunId === null && config.setup_commands.length > 0) {
      const setup = await runSetupCommands(config.setup_commands, {
        runner: workspace.commandRunner,
        cwd: workspace.workspaceRoot,
        timeoutMs: context.commandTimeoutMs,
        signal: deps.signal,
      });
      if (!setup.ok) {
        await deps.progress.finish(
          `❌ The setup command \`${setup.failedCommand ?? "?"}\` failed, so I did not start. Fix \`setup_commands\` in \`.github/agentforge.yml\`.`,
        );
        return failedOutcome("setup failed");
      }
    }
    const result = await runJobAgent(
      pull.isFromFork ? withoutResume(deps) : deps,
      workspace,
      {
        prompt,
        mode: pull.isFromFork ? "plan" : "build",
        allowPrefixes: pull.isFromFork ? [] : jobAllowPrefixes(config, deps.operatorAllowPrefixes),
        untrustedInputs: conversation.untrustedInputs,
        ...(config.max_turns === undefined ? {} : { maxTurns: config.max_turns }),
      },
      tracker,
    );
    const spent = {
      totalTokens: result.usage.totalTokens,
      costUsd: result.costUsd,
      runId: result.runId,
      pullRequestNumber: job.number,
    };
    const answer = result.finalAnswer?.trim() ?? "";
    if (
      result.exitReason === "cancelled" ||
      result.exitReason === "model_error" ||
      result.exitReason === "error"
    ) {
      await deps.progress.finish(
        `❌ ${explainExitReason(result.exitReason, result.errorMessage)}\n\n${usageLine(result)}`,
      );
      return failedOutcome(result.exitReason, spent);
    }
    if (pull.isFromFork) {
      await deps.progress.finish(
        `${answer || explainExitReason(result.exitReason)}\n\n_${FORK_NOTE}_\n\n${usageLine(result)}`,
      );
      return { status: "answered", summary: "answered (fork)", ...spent };
    }
    const tests = await runTestCommands(config.test_commands, {
      runner: workspace.commandRunner,
      workspaceRoot: workspace.workspaceRoot,
      timeoutMs: context.commandTimeoutMs,
      signal: deps.signal,
    });
    const pushed = await commitAndPush({
      repository: workspace.repository,
      branch: pull.headRef,
      message: `Apply request on #${job.number}\n\nRequested by @${job.requester}.`,
      author: deps.author,
      coAuthor: await resolveCoAuthor(deps.octokit, job.requester),
      token: await deps.getToken(),
      remoteUrl: repository.cloneUrl,
      baseSha: workspace.baseSha,
      signal: deps.signal,
      ...(workspace.remoteBranchSha === null ? {} : { expectedRemoteSha: workspace.remoteBranchSha }),
    });
    if (!pushed.committed && pushed.error === undefined) {
      await deps.progress.finish(`${answer || explainExitReason(result.exitReason)}\n\n${usageLine(result)}`);
      return { status: "answered", summary: "answered", ...spent };
    }
    if (!pushed.pushed) {
      await deps.progress.finish(
        `❌ I changed the code but could not push to \`${pull.headRef}\`: ${pushed.error ?? "unknown error"}\n\nIf someone pushed meanwhile, ask again; otherwise check the app's write access and branch rules.`,
      );
      return failedOutcome("push refused", spent);
    }
    const testLine =
      tests.records.length === 0
        ? "No test command is configured."
        : tests.isPassing
          ? "The tests pass."
          : "⚠️ The tests fail after this change.";
    await deps.progress.finish(
      `✅ Pushed ${pushed.sha?.slice(0, 7) ?? ""} to \`${pull.headRef}\`.\n\n${answer}\n\n${testLine}\n\n${usageLine(result)}`,
    );
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
