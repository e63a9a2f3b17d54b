import { addCostUsd, type CostUsd } from "../model/cost-usd.js";
import type { TokenUsage } from "../model/model-types.js";
import type { ExitReason } from "./loop-events.js";

export interface LoopBudgets {
  /** A hard limit on model calls; never exceeded. */
  readonly maxTurns: number;
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxWallClockMs?: number;
}

export interface UsageTotals extends TokenUsage {
  /** Null once any call had no known price. */
  readonly costUsd: CostUsd;
}

export const ZERO_USAGE: UsageTotals = { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 };

export function addUsage(total: UsageTotals, usage: TokenUsage, costUsd: CostUsd): UsageTotals {
  return {
    promptTokens: total.promptTokens + usage.promptTokens,
    completionTokens: total.completionTokens + usage.completionTokens,
    totalTokens: total.totalTokens + usage.totalTokens,
    costUsd: addCostUsd(total.costUsd, costUsd),
  };
}

/** Checked before every model call: a spent budget stops the run with its own exit reason. */
export function exceededBudget(
  usage: UsageTotals,
  budgets: LoopBudgets,
  elapsedMs: number,
): { reason: ExitReason; message: string } | null {
  if (budgets.maxWallClockMs !== undefined && elapsedMs >= budgets.maxWallClockMs) {
    return {
      reason: "timeout",
      message: `The run used its wall-clock budget of ${budgets.maxWallClockMs} ms.`,
    };
  }
  if (budgets.maxTotalTokens !== undefined && usage.totalTokens >= budgets.maxTotalTokens) {
    return {
      reason: "budget_exhausted",
      message: `The run used ${usage.totalTokens} tokens of its budget of ${budgets.maxTotalTokens}.`,
    };
  }
  // An unknown cost cannot be held to a cost budget; the token budget still applies.
  if (budgets.maxCostUsd !== undefined && usage.costUsd !== null && usage.costUsd >= budgets.maxCostUsd) {
    return {
      reason: "budget_exhausted",
      message: `The run cost $${usage.costUsd.toFixed(4)} of its budget of $${budgets.maxCostUsd}.`,
    };
  }
  return null;
}
