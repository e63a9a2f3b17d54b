import type { BudgetLimits } from "./create-installation-budgets.js";

export type BudgetLimitsResult =
  | { readonly success: true; readonly value: BudgetLimits }
  | { readonly success: false; readonly error: string };

const VARIABLES = {
  tokensPerDay: { name: "AGENTFORGE_BUDGET_TOKENS_PER_DAY", isWhole: true },
  costUsdPerDay: { name: "AGENTFORGE_BUDGET_COST_USD_PER_DAY", isWhole: false },
  concurrentTasks: { name: "AGENTFORGE_BUDGET_CONCURRENT_TASKS", isWhole: true },
} as const;

/**
 * Per-installation limits from the environment. An unset or empty variable means no limit;
 * anything else must be a positive number (whole for tokens and tasks), or start-up fails
 * naming the variable, so a typo never silently turns a budget off.
 */
export function readBudgetLimits(env: NodeJS.ProcessEnv = process.env): BudgetLimitsResult {
  const limits: { tokensPerDay?: number; costUsdPerDay?: number; concurrentTasks?: number } = {};
  for (const [field, { name, isWhole }] of Object.entries(VARIABLES)) {
    const text = env[name]?.trim() ?? "";
    if (text === "") continue;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0 || (isWhole && !Number.isInteger(value)))
      return {
        success: false,
        error: `${name}: expected a positive ${isWhole ? "whole number" : "number"}, got "${text}"`,
      };
    limits[field as keyof typeof VARIABLES] = value;
  }
  return { success: true, value: limits };
}

export function hasBudgetLimits(limits: BudgetLimits): boolean {
  return (
    limits.tokensPerDay !== undefined ||
    limits.costUsdPerDay !== undefined ||
    limits.concurrentTasks !== undefined
  );
}

/** The operator config's `installation_budgets`, in the shape the budgets use. */
export interface ConfiguredBudgets {
  readonly tokens_per_day?: number | undefined;
  readonly cost_usd_per_day?: number | undefined;
  readonly concurrent_tasks?: number | undefined;
}

/**
 * The limits in force: the operator config's, each overridden by its environment variable when
 * that one is set (the environment is read and checked by readBudgetLimits).
 */
export function mergeBudgetLimits(
  configured: ConfiguredBudgets,
  fromEnvironment: BudgetLimits,
): BudgetLimits {
  const tokensPerDay = fromEnvironment.tokensPerDay ?? configured.tokens_per_day;
  const costUsdPerDay = fromEnvironment.costUsdPerDay ?? configured.cost_usd_per_day;
  const concurrentTasks = fromEnvironment.concurrentTasks ?? configured.concurrent_tasks;
  return {
    ...(tokensPerDay === undefined ? {} : { tokensPerDay }),
    ...(costUsdPerDay === undefined ? {} : { costUsdPerDay }),
    ...(concurrentTasks === undefined ? {} : { concurrentTasks }),
  };
}
