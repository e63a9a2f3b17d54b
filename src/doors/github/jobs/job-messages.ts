import type { ExitReason } from "../../../core/loop/loop-events.js";
import type { AgentRunResult } from "../../../core/agent-run.js";
import { formatUsage } from "./track-run-progress.js";

/** What an exit reason means for the person, and what they can do about it. */
export function explainExitReason(exitReason: ExitReason, errorMessage?: string): string {
  const detail = errorMessage === undefined ? "" : ` (${errorMessage})`;
  switch (exitReason) {
    case "final_answer":
      return "The run finished.";
    case "max_turns":
      return "The run used all its turns before it finished. Try again with narrower instructions, or raise `max_turns` in `.github/agentforge.yml`.";
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
      return `The run failed${detail}. Try again, or \`@agentforge help\`.`;
  }
}

export function usageLine(result: Pick<AgentRunResult, "usage" | "costUsd" | "turns">): string {
  return `${result.turns} turn${result.turns === 1 ? "" : "s"} · ${formatUsage(result.usage.totalTokens, result.costUsd)}`;
}

/** A fenced block that the text cannot close, for command output in a comment. */
export function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}
