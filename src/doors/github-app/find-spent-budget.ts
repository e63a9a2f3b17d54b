import type { BudgetCheck } from "./budgets/create-installation-budgets.js";
import type { IntakeDependencies } from "./intake-context.js";

export type BudgetRefusal = Extract<BudgetCheck, { allowed: false }>;

/**
 * The installation's spent daily budget, or null. A full concurrency limit is not a refusal at
 * intake: the queue holds the task until a slot frees (its per-installation limit), and the
 * worker checks the slot again when it claims.
 */
export async function findSpentBudget(
  deps: Pick<IntakeDependencies, "budgets">,
  installationId: number,
): Promise<BudgetRefusal | null> {
  if (deps.budgets === undefined) return null;
  const check = await deps.budgets.check(installationId);
  if (check.allowed || check.reason === "concurrent-tasks") return null;
  return check;
}
