import path from "node:path";
import { createRuntime } from "../../core/runtime/index.js";
import type { JobOutcome } from "../github/jobs/github-job.js";
import { applyModeCommand } from "../github/commands/conversation-mode.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";
import { createRepositoryCache } from "../github/workspace/create-repository-cache.js";
import type { ActionContext } from "./action-context.js";
import { buildRuntimeEnvironment } from "./action-secrets.js";
import { authorizeRequester } from "./authorize-requester.js";
import { createProgressComment } from "../github/create-progress-comment.js";
import type { DoorLogger } from "../github/github-logger.js";
import type { ActionPlan } from "./derive-action-plan.js";
import type { CommentPlace } from "./action-plan.js";
import { addEyesReaction, postReply, type CommandSource } from "../github/github-replies.js";
import { reportRun } from "./report-run.js";
import { createStepLog } from "./create-step-log.js";
import { observeStepRuns } from "./observe-step-runs.js";
import { confirmCiFix } from "./confirm-ci-fix.js";

/** The identity GitHub shows for commits made with the workflow token. */
export const ACTIONS_BOT_AUTHOR = {
  name: "github-actions[bot]",
  email: "41898282+github-actions[bot]@users.noreply.github.com",
} as const;

const HEADLINES: Readonly<Record<JobOutcome["status"], string>> = {
  "pull-request-opened": "pull request opened",
  "pull-request-updated": "pull request updated",
  "plan-posted": "plan posted",
  "review-posted": "review posted",
  answered: "answered",
  "no-change": "no change needed",
  failed: "failed",
};

/**
 * Comment commands, pull request reviews and replies: authorize the person, then hand the job
 * to the shared GitHub flow, which clones, runs, pushes and posts exactly as the App does.
 */
export async function runGitHubActionJob(
  context: ActionContext,
  plan: Extract<ActionPlan, { kind: "job" | "reply" }>,
): Promise<number> {
  const { inputs, environment, dependencies } = context;
  const { io } = dependencies;
  if (inputs.githubToken === undefined) {
    io.error(
      `input "github-token" is required to act on ${environment.eventName} events (default: \${{ github.token }})`,
    );
    return 1;
  }
  const token = inputs.githubToken;
  const octokit = dependencies.createOctokit({ token, baseUrl: environment.apiUrl });
  const target = { owner: environment.owner, repo: environment.repo };
  const needsWriteAccess = plan.kind === "reply" || plan.needsWriteAccess;
  if (needsWriteAccess) {
    const authorization = await authorizeRequester(octokit, target, plan.requester);
    if (!authorization.authorized) {
      // No reply: answering every unauthorized mention would let anyone make the bot talk.
      await reportRun(context, { result: "unauthorized", headline: `ignored: ${authorization.reason}` });
      return 0;
    }
  }
  const redact = (text: string): string => context.redactor.redact(text);
  if (plan.kind === "reply") {
    const text =
      plan.modeChange === undefined
        ? plan.text
        : await applyModeCommand(
            octokit,
            { ...target, number: plan.number },
            plan.modeChange.command,
            plan.modeChange.current,
            `@${inputs.triggerName}`,
          );
    await postReply(octokit, commandSourceOf(plan, target), text, redact);
    await reportRun(context, { result: "answered", headline: "answered the comment" });
    return 0;
  }
  if (plan.job.kind === "fix-ci" && plan.job.automatic === true) {
    const decision = await confirmCiFix(octokit, plan.job, {
      ownLogin: inputs.botLogin,
      mention: `@${inputs.triggerName}`,
    });
    if (decision.kind === "nothing") {
      await reportRun(context, { result: "skipped", headline: `skipped: ${decision.reason}` });
      return 0;
    }
    if (decision.kind === "stop") {
      await postReply(octokit, commandSourceOf(plan.job, target), decision.comment, redact);
      await reportRun(context, {
        result: "answered",
        headline: "CI fix attempts spent: said what still fails",
      });
      return 0;
    }
  }
  if (plan.commentId !== undefined)
    await acknowledge(octokit, commandSourceOf({ ...plan, number: plan.job.number }, target), (message) =>
      io.warning(message),
    );
  const runtimeEnv = buildRuntimeEnvironment(inputs, dependencies.env, path.join(context.outputDir, "data"));
  const runtime = await createRuntime({
    env: runtimeEnv,
    ...(inputs.maxTurns === undefined ? {} : { maxTurns: inputs.maxTurns }),
    secrets: context.secrets,
    stream: false,
    ...(dependencies.model ? { model: dependencies.model } : {}),
    allowedModels: inputs.allowedModels,
    log: (message) => io.warning(message),
  });
  try {
    if (runtime.sandboxKind === "none")
      io.warning("AGENTFORGE_SANDBOX=none: commands run without the bubblewrap sandbox.");
    const { commandRunner } = runtime;
    const stepLog = createStepLog(io, redact);
    const observed = observeStepRuns(runtime.runner, stepLog.onEvent);
    const progress = createProgressComment(octokit, {
      ...target,
      issueNumber: plan.job.number,
      ...(plan.commentPlace === "review-comment" && plan.commentId !== undefined
        ? { replyTo: { commentId: plan.commentId } }
        : {}),
      redact,
      logger: warningLogger((message) => io.warning(redact(message))),
    });
    const outcome = await dependencies.runGitHubJob(plan.job, {
      github: {
        octokit,
        getToken: () => Promise.resolve(token),
        author: ACTIONS_BOT_AUTHOR,
        ownLogin: inputs.botLogin,
        mention: `@${inputs.triggerName}`,
      },
      workspace: {
        cache: createRepositoryCache({
          cacheDir: context.cacheDir,
          hostEnv: runtimeEnv,
        }),
        commandRunner,
      },
      agent: {
        runner: observed.runner,
        model: runtime.model,
        allowedModels: runtime.allowedModels,
        modelFor: (name) => runtime.modelFor(name),
        extraAllowPrefixes: inputs.allowedCommands,
        tracePath: context.tracePath,
      },
      report: {
        progress,
        redact,
        ...(environment.runUrl === undefined ? {} : { runUrl: environment.runUrl }),
        log: (message, details) => io.warning(details ? `${message} ${JSON.stringify(details)}` : message),
      },
      signal: dependencies.signal,
    });
    stepLog.flush();
    await reportRun(context, {
      result: outcome.status,
      headline: `${plan.job.kind} #${plan.job.number}: ${HEADLINES[outcome.status]}`,
      details: outcome.summary,
      ...(outcome.url === undefined ? {} : { url: outcome.url }),
      ...(outcome.branch === undefined ? {} : { branch: outcome.branch }),
      // The folder is this step's own: a trace in it was written by this step's run.
      tracePath: outcome.tracePath ?? observed.lastTracePath() ?? context.tracePath,
      // A review's panel is several runs: its tokens and cost, and no one turn count.
      ...(plan.job.kind === "review"
        ? { usage: { turns: null, totalTokens: outcome.totalTokens, costUsd: outcome.costUsd } }
        : {}),
    });
    if (outcome.status === "failed") {
      io.error(redact(`The ${plan.job.kind} job failed: ${outcome.summary}`));
      return 1;
    }
    return 0;
  } finally {
    await runtime.close();
  }
}

/** Where the command was written, so the answer and the 👀 go back to the same place. */
function commandSourceOf(
  plan: { readonly number: number; readonly commentId?: number; readonly commentPlace?: CommentPlace },
  target: { readonly owner: string; readonly repo: string },
): CommandSource {
  if (plan.commentId === undefined) return { kind: "issue", ...target, issueNumber: plan.number };
  return plan.commentPlace === "review-comment"
    ? { kind: "review-comment", ...target, pullNumber: plan.number, commentId: plan.commentId }
    : { kind: "issue-comment", ...target, issueNumber: plan.number, commentId: plan.commentId };
}

/** 👀 on the command comment: the person sees at once that the step picked it up. Best effort. */
async function acknowledge(
  octokit: GitHubRequester,
  source: CommandSource,
  warn: (message: string) => void,
): Promise<void> {
  try {
    await addEyesReaction(octokit, source);
  } catch (error) {
    warn(`could not add the 👀 reaction: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The progress comment reports failed edits through the step's warnings. */
function warningLogger(warn: (message: string) => void): DoorLogger {
  const report = (details: object, message: string): void => warn(`${message} ${JSON.stringify(details)}`);
  return { debug: () => undefined, info: () => undefined, warn: report, error: report };
}
