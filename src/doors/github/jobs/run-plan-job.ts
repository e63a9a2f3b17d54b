import { PLAN_MODE_MAX_TURNS } from "../../../core/session/index.js";
import type { JobOutcome } from "./github-job.js";
import { failedOutcome, spentBy, withoutRecovery, type JobContext } from "./job-context.js";
import { jobHeadings, noPlanMessage, planMessage } from "./job-messages.js";
import { prepareJobWorkspace } from "./prepare-job-workspace.js";
import { readConversation } from "./read-conversation.js";
import { readInstructionsStage } from "./stages/read-instructions-stage.js";
import { jobAllowPrefixes, runAgentStage } from "./stages/run-agent-stage.js";
import { trackRunProgress } from "./track-run-progress.js";
import { jobRunModel } from "./check-model-choice.js";

/**
 * A plan, posted as the progress comment's final text: checkout, AGENTS.md, a plan-mode run. The
 * checkout is read-only for the agent (plan mode offers only read tools and the read-only command
 * allowlist, and its commands see the workspace mounted read-only), with a bounded number of
 * turns. No setup command runs, since nothing is built or tested.
 */
export async function runPlanJob(context: JobContext): Promise<JobOutcome> {
  const { job, repository, config } = context;
  const deps = withoutRecovery(context.deps);
  const { github, report, signal } = deps;
  const tracker = trackRunProgress({
    heading: jobHeadings.plan(job.number),
    progress: report.progress,
    ...(report.now ? { now: report.now } : {}),
  });
  const conversation = await readConversation(
    github.octokit,
    {
      owner: job.owner,
      repo: job.repo,
      number: job.number,
      requester: job.requester,
    },
    { allowedBots: config.allowed_bots },
  );
  const workspace = await prepareJobWorkspace(deps, {
    cloneUrl: repository.cloneUrl,
    ref: repository.defaultBranch,
  });
  try {
    const instructions = await readInstructionsStage(workspace, report);
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
    const result = await runAgentStage(
      deps.agent,
      workspace,
      {
        prompt,
        mode: "plan",
        maxTurns: Math.min(config.max_turns ?? PLAN_MODE_MAX_TURNS, PLAN_MODE_MAX_TURNS),
        allowPrefixes: jobAllowPrefixes(config, deps.agent.extraAllowPrefixes ?? []),
        untrustedInputs: conversation.untrustedInputs,
        ...jobRunModel(job),
        ...(instructions === null ? {} : { repositoryInstructions: instructions }),
      },
      tracker,
      signal,
    );
    const spent = spentBy(result);
    if (result.finalAnswer === null || result.finalAnswer.trim().length === 0) {
      await report.progress.finish(noPlanMessage(result, github.mention));
      return failedOutcome(result.exitReason, spent);
    }
    await report.progress.finish(planMessage(job.number, result, github.mention));
    return { status: "plan-posted", summary: "plan posted", ...spent };
  } finally {
    await workspace.cleanup();
  }
}
