import { isEveryActionRefused, type RunResult } from "../../../core/agent-run.js";
import type { ExitReason } from "../../../core/loop/index.js";
import { REPOSITORY_CONFIG_PATH } from "../repository-config.js";
import { abortReasonOf } from "./describe-abort.js";
import { formatUsage } from "./track-run-progress.js";
import type { PublishFixResult } from "./stages/publish-fix-stage.js";
import type { TestRun } from "./stages/run-test-stage.js";

/**
 * Every text a job posts, in one place. A message that suggests a command names the bot as the
 * person addresses it (`mention`: the App's `@slug`, or the Action's trigger phrase).
 */

type RunFigures = Pick<RunResult, "usage" | "costUsd" | "turns"> &
  Partial<Pick<RunResult, "actions" | "model">>;

/** What an exit reason means for the person, and what they can do about it. */
export function explainExitReason(
  exitReason: ExitReason,
  errorMessage?: string,
  mention = "@agentforge",
): string {
  const detail = errorMessage === undefined ? "" : ` (${errorMessage})`;
  switch (exitReason) {
    case "final_answer":
      return "The run finished.";
    case "max_turns":
      return `The run used all its turns before it finished. Try again with narrower instructions, or raise \`max_turns\` in \`${REPOSITORY_CONFIG_PATH}\`.`;
    case "budget_exhausted":
      return "The run's token or cost budget was spent before it finished. Try again with narrower instructions, or ask the operator to raise the budget.";
    case "timeout":
      return "The run hit its time limit. Try again with narrower instructions.";
    case "loop_detected":
      return "The run was stopped because it kept repeating the same steps. Try again with more precise instructions.";
    case "cancelled":
      return "The run was stopped.";
    case "model_error":
      return `The model could not be reached${detail}. Nothing was pushed. Try again in a few minutes; if it keeps failing, the operator should check the model endpoint and key.`;
    case "error":
      return `The run failed${detail}. Try again, or \`${mention} help\`.`;
  }
}

/** What a run cost, and with which model when it says. */
export function usageLine(result: RunFigures): string {
  const model = result.model === undefined ? "" : `\`${result.model}\` · `;
  const refused = result.actions?.refused ?? 0;
  const figures = `${model}${result.turns} turn${result.turns === 1 ? "" : "s"} · ${formatUsage(result.usage.totalTokens, result.costUsd)}${refused > 0 ? ` · ${refused} refused` : ""}`;
  // A run whose every action was refused changed and ran nothing, whatever its answer claims.
  return result.actions !== undefined && isEveryActionRefused(result.actions)
    ? `⚠️ Every action the agent tried was refused (${result.actions.refused} of ${result.actions.attempted}): it changed and ran nothing, whatever the text above says. Allow the commands it needs in \`allowed_commands\` of \`${REPOSITORY_CONFIG_PATH}\`.\n\n${figures}`
    : figures;
}

/** A fenced block that the text cannot close, for command output in a comment. */
export function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

export const jobHeadings = {
  fix: (number: number) => `👀 Working on a fix for #${number}…`,
  plan: (number: number) => `👀 Planning #${number}…`,
  request: (number: number) => `👀 Working on your request on #${number}…`,
  review: (number: number) => `👀 Reviewing #${number}…`,
  reviewing: (number: number, files: number) =>
    `👀 Reviewing #${number}: ${files} file(s), three reviewers at work…`,
};

export function setupFailedMessage(command: string, outputTail: string): string {
  return `❌ The setup command \`${command}\` failed, so I did not start.\n\n${codeBlock(outputTail)}\n\nFix \`setup_commands\` in \`${REPOSITORY_CONFIG_PATH}\` on the default branch, then ask again.`;
}

export function runFailedMessage(result: RunResult, mention: string): string {
  return `❌ ${explainExitReason(result.exitReason, result.errorMessage, mention)}\n\n${usageLine(result)}`;
}

/** A model chosen with `… with <model>` that the operator does not allow: nothing ran. */
export function modelNotAllowedMessage(model: string, allowed: readonly string[]): string {
  return `\`${model}\` is not one of the models this installation allows: ${allowed.length === 0 ? "(none)" : allowed.join(", ")}.`;
}

export function invalidConfigMessage(problems: string): string {
  const lines = problems
    .split("\n")
    .map((line) => `- ${line}`)
    .join("\n");
  return `❌ I did not start: \`${REPOSITORY_CONFIG_PATH}\` on the default branch is not valid.\n\n${lines}`;
}

export function jobCrashedMessage(reason: string, stopped: AbortSignal | boolean, mention: string): string {
  const isStopped = typeof stopped === "boolean" ? stopped : stopped.aborted;
  if (!isStopped)
    return `❌ The run failed: ${reason}\n\nYou can try again with a new comment, or \`${mention} help\`.`;
  const why = typeof stopped === "boolean" ? null : abortReasonOf(stopped);
  return why === null ? "⏹️ Stopped. Nothing more will happen for this request." : cancelledMessage(why);
}

/** A run a newer push or command superseded, in the comment that followed it. */
export function cancelledMessage(why: string): string {
  return `⏹️ Cancelled: ${why}. This run stops here; nothing more is posted or pushed for it.`;
}

/** The fix job's last word, from what publishing did. */
export function fixResultMessage(
  number: number,
  branch: string,
  result: RunResult,
  tests: TestRun,
  published: PublishFixResult,
  mention: string,
): string {
  const usage = usageLine(result);
  switch (published.kind) {
    case "no-change": {
      const why =
        result.exitReason === "final_answer"
          ? ""
          : `\n\n${explainExitReason(result.exitReason, undefined, mention)}`;
      return `🤷 I made no change for #${number}.${why}\n\n${result.finalAnswer ?? ""}\n\n${usage}\n\nYou can ask again with more precise instructions: \`${mention} fix <what to do>\`.`;
    }
    case "push-failed":
      return `❌ I made a change but could not push \`${branch}\`: ${published.error}\n\nCheck that the app may write to this repository (contents: write) and that no rule protects \`${branch}\`, then ask again.\n\n${usage}`;
    case "published": {
      const { pullRequest, isComplete } = published;
      const verb = pullRequest.created ? "Opened" : "Updated";
      const state = isComplete
        ? "The tests pass."
        : !tests.isPassing
          ? `⚠️ The tests still fail, so the pull request is a draft and does not close the issue.\n\n${codeBlock(tests.failureExcerpt ?? "")}`
          : `⚠️ ${explainExitReason(result.exitReason, undefined, mention)} The pull request is a draft with what was done so far.`;
      return `${isComplete ? "✅" : "⚠️"} ${verb} #${pullRequest.number}: ${pullRequest.url}\n\n${state}\n\n${usage}`;
    }
  }
}

export function noPlanMessage(result: RunResult, mention: string): string {
  return `❌ No plan came out of the run. ${explainExitReason(result.exitReason, result.errorMessage, mention)}\n\n${usageLine(result)}`;
}

export function planMessage(number: number, result: RunResult, mention: string): string {
  const note =
    result.exitReason === "final_answer"
      ? ""
      : `\n\n_${explainExitReason(result.exitReason, undefined, mention)}_`;
  return `### Plan for #${number}\n\n${(result.finalAnswer ?? "").trim()}${note}\n\n---\n${usageLine(result)} · ask \`${mention} fix\` to carry it out`;
}

export const FORK_NOTE =
  "This pull request comes from a fork, so I only read it and answer: I cannot push to a fork's branch, and code from a fork never runs where a token could be reached.";

export function answerMessage(result: RunResult, mention: string, note?: string): string {
  const answer = result.finalAnswer?.trim() || explainExitReason(result.exitReason, undefined, mention);
  return `${answer}${note === undefined ? "" : `\n\n_${note}_`}\n\n${usageLine(result)}`;
}

export function requestPushFailedMessage(branch: string, error: string): string {
  return `❌ I changed the code but could not push to \`${branch}\`: ${error}\n\nIf someone pushed meanwhile, ask again; otherwise check the app's write access and branch rules.`;
}

export function requestPushedMessage(
  branch: string,
  sha: string | undefined,
  result: RunResult,
  tests: TestRun,
): string {
  const testLine =
    tests.records.length === 0
      ? "No `test_commands` are configured: nothing ran after the agent to check its change."
      : tests.isPassing
        ? "The tests pass."
        : "⚠️ The tests fail after this change.";
  return `✅ Pushed ${sha?.slice(0, 7) ?? ""} to \`${branch}\`.\n\n${result.finalAnswer?.trim() ?? ""}\n\n${testLine}\n\n${usageLine(result)}`;
}

export const reviewMessages = {
  noModel: "❌ Reviews are not set up on this installation (no model for the reviewers). Ask the operator.",
  nothingToReview: (scope: string, number: number) =>
    `Nothing to review in ${scope} of #${number} (no changed files outside \`review.ignore_paths\`).`,
  alreadyReviewed: (number: number, headSha: string, mention: string) =>
    `Nothing new to review on #${number}: the last review was of ${headSha.slice(0, 7)}, its current head. \`${mention} review full\` reviews the whole pull request again.`,
  posted: (reported: number, url: string | null, usage: string, resolved = 0) =>
    `✅ Review posted with ${reported} finding(s)${resolved > 0 ? `; ${resolved} earlier finding(s) resolved as fixed` : ""}:${url === null ? "" : ` ${url}`}\n\n${usage}`,
};

export const ciFixMessages = {
  heading: (number: number, automatic: boolean) =>
    automatic
      ? `👀 CI failed on #${number}; reading the failing checks to fix them…`
      : `👀 Reading the failing checks of #${number} to fix them…`,
  fork: "This pull request comes from a fork: I cannot push to its branch, so I cannot fix its CI. Its author can.",
  notStarted: (reason: string) => `⏭️ Not fixing CI: ${reason}.`,
  nothingFails: (headSha: string, mention: string) =>
    `✅ No check fails on ${headSha.slice(0, 7)}, the head of this pull request, so there is nothing to fix. Checks still running are not read: ask \`${mention} fix ci\` again when one fails.`,
};
