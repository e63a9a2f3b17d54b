import { PLAN_MODE_MAX_TURNS } from "../../../core/session/create-session.js";
import { readInstructionsFromGitRef } from "../../../core/skills/read-instructions-from-git-ref.js";
import type { GitHubJobOutcome } from "./github-job.js";
import { failedOutcome, withoutResume, type JobContext } from "./job-context.js";
import { explainExitReason, usageLine } from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readConversation } from "./read-conversation.js";
import { jobAllowPrefixes, runJobAgent } from "./run-job-agent.js";
import { trackRunProgress } from "./track-run-progress.js";

/**
 * A plan, posted as the progress comment's final text. The checkout is read-only for the agent:
 * plan mode offers only read tools and the read-only command allowlist, with a bounded number of
 * turns. No setup commands run, since nothing is built or tested.
 */
export async function runPlanJob(context: JobContext): Promise<GitHubJobOutcome> {
  const { job, deps, repository, config } = context;
  const tracker = trackRunProgress({
    heading: `👀 Planning #${job.number}…`,
    progress: deps.progress,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const conversation = await readConversation(deps.octokit, {
    owner: job.owner,
    repo: job.repo,
    number: job.number,
    requester: job.requester,
  });
  const workspace = await prepareJobWorkspace(withoutResume(deps), {
    cloneUrl: repository.cloneUrl,
    ref: repository.defaultBranch,
  });
  try {
    const instructions = await readInstructionsFromGitRef(workspace.repository, workspace.baseSha).catch(
      (error: unknown) => {
        deps.log?.("AGENTS.md not read", { error: error instanceof Error ? error.message : String(error) });
        return null;
      },
    );
    const prompt = [
      `Write a plan to resolve ${job.isPullRequest ? "pull request" : "issue"} #${job.number} of ${repository.fullName}. Do not change anything: read the code and plan.`,
      "",
      conversation.requestText.trim() || "(the request is in the attached text)",
      ...(job.instructions === undefined
        ? []
        : ["", `Instructions from @${job.requester}: ${job.instructions}`]),
      "",
      "Answer with: the root cause or the design, the files to change and how, the tests to add, and the risks.",
    ].join("\n");
    const result = await runJobAgent(
      withoutResume(deps),
      workspace,
      {
        prompt,
        mode: "plan",
        maxTurns: Math.min(config.max_turns ?? PLAN_MODE_MAX_TURNS, PLAN_MODE_MAX_TURNS),
        allowPrefixes: jobAllowPrefixes(config, deps.operatorAllowPrefixes),
        untrustedInputs: conversation.untrustedInputs,
        ...(instructions === null ? {} : { repositoryInstructions: instructions }),
      },
      tracker,
    );
    const spent = { totalTokens: result.usage.totalTokens, costUsd: result.costUsd, runId: result.runId };
    if (result.finalAnswer === null || result.finalAnswer.trim().length === 0) {
      await deps.progress.finish(
        `❌ No plan came out of the run. ${explainExitReason(result.exitReason, result.errorMessage)}\n\n${usageLine(result)}`,
      );
      return failedOutcome(result.exitReason, spent);
    }
    const note = result.exitReason === "final_answer" ? "" : `\n\n_${explainExitReason(result.exitReason)}_`;
    await deps.progress.finish(
      `### Plan for #${job.number}\n\n${result.finalAnswer.trim()}${note}\n\n---\n${usageLine(result)} · ask \`@agentforge fix\` to carry it out`,
    );
    return { status: "plan-posted", summary: "plan posted", ...spent };
  } finally {
    await workspace.cleanup();
  }
}
