import { describe, expect, it } from "@jest/globals";
import { parseOperatorConfig } from "../../../../src/core/config/load-operator-config.js";
import {
  hasBudgetLimits,
  mergeBudgetLimits,
  readBudgetLimits,
} from "../../../../src/doors/github-app/budgets/read-budget-limits.js";

describe("installation budget limits", () => {
  it("come from the operator config, each overridden by its environment variable", () => {
    const config = parseOperatorConfig(
      { installation_budgets: { tokens_per_day: 500_000, cost_usd_per_day: 12.5, concurrent_tasks: 2 } },
      null,
    );
    expect(config.success).toBe(true);
    if (!config.success) return;
    const fromEnvironment = readBudgetLimits({ AGENTFORGE_BUDGET_COST_USD_PER_DAY: "3" });
    expect(fromEnvironment.success).toBe(true);
    if (!fromEnvironment.success) return;
    expect(mergeBudgetLimits(config.value.installation_budgets, fromEnvironment.value)).toEqual({
      tokensPerDay: 500_000,
      costUsdPerDay: 3,
      concurrentTasks: 2,
    });
  });

  it("are none when neither the config nor the environment sets any", () => {
    const config = parseOperatorConfig({}, null);
    const fromEnvironment = readBudgetLimits({ AGENTFORGE_BUDGET_TOKENS_PER_DAY: "" });
    expect(config.success && fromEnvironment.success).toBe(true);
    if (!config.success || !fromEnvironment.success) return;
    const limits = mergeBudgetLimits(config.value.installation_budgets, fromEnvironment.value);
    expect(limits).toEqual({});
    expect(hasBudgetLimits(limits)).toBe(false);
  });

  it("refuse a malformed value by its name, in the config and in the environment", () => {
    const config = parseOperatorConfig(
      { installation_budgets: { concurrent_tasks: 1.5, per_week: 3 } },
      "ops.yml",
    );
    expect(config.success).toBe(false);
    if (!config.success) {
      expect(config.error).toContain("installation_budgets.concurrent_tasks");
      expect(config.error).toContain("per_week");
    }
    const fromEnvironment = readBudgetLimits({ AGENTFORGE_BUDGET_TOKENS_PER_DAY: "lots" });
    expect(fromEnvironment).toEqual({
      success: false,
      error: 'AGENTFORGE_BUDGET_TOKENS_PER_DAY: expected a positive whole number, got "lots"',
    });
  });
});
