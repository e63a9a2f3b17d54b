import type { ActionTally, RunResult } from "../agent-run.js";
import type { PinnedFacts } from "../context/index.js";
import type { UsageTotals } from "../loop/loop-budgets.js";
import { addCostUsd } from "../model/cost-usd.js";
import type { LoopResult } from "../loop/run-loop.js";
import type { Redactor } from "../safety/create-redactor.js";

/** What a door gets back: the loop's outcome, the facts it kept, every text redacted. */
export function toRunResult(
  runId: string,
  result: LoopResult,
  usage: UsageTotals,
  facts: PinnedFacts,
  tracePath: string,
  redactor: Redactor,
  actions: ActionTally,
): RunResult {
  const data = facts.toJSON();
  return {
    runId,
    exitReason: result.exitReason,
    finalAnswer: result.finalAnswer === null ? null : redactor.redact(result.finalAnswer),
    turns: result.turns,
    usage: {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.totalTokens,
    },
    costUsd: usage.costUsd,
    tracePath,
    filesChanged: data.filesChanged,
    commandsRun: data.commands.map((command) => ({
      command: redactor.redact(command.command),
      exitCode: command.lastExitCode,
      ok: command.lastOk,
    })),
    actions,
    ...(result.errorMessage ? { errorMessage: redactor.redact(result.errorMessage) } : {}),
  };
}

export function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: addCostUsd(a.costUsd, b.costUsd),
  };
}
