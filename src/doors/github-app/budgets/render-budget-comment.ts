import type { BudgetCheck } from "./create-installation-budgets.js";

type Refusal = Extract<BudgetCheck, { allowed: false }>;

/** "in 5 h", "in 4 h 20 min", "in 12 min", "in less than a minute". */
export function formatTimeUntil(from: Date, to: Date): string {
  const minutes = Math.ceil((to.getTime() - from.getTime()) / 60_000);
  if (minutes <= 1) return "in less than a minute";
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `in ${minutes} min`;
  return rest === 0 ? `in ${hours} h` : `in ${hours} h ${rest} min`;
}

const formatNumber = (value: number): string => new Intl.NumberFormat("en-US").format(value);
const formatUsd = (value: number): string =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2 }).format(
    value,
  );

/** The comment posted instead of running a task when the installation's budget is spent. */
export function renderBudgetComment(result: Refusal, now: Date = new Date()): string {
  const when = `${result.resetsAt.toISOString()} (${formatTimeUntil(now, result.resetsAt)})`;
  switch (result.reason) {
    case "tokens-per-day":
      return [
        `The daily token budget of this installation is spent: ${formatNumber(result.used)} of ${formatNumber(result.limit)} tokens used today (UTC).`,
        `It resets at ${when}. Comment again after that, or ask the operator to raise the budget.`,
      ].join("\n\n");
    case "cost-per-day":
      return [
        `The daily cost budget of this installation is spent: ${formatUsd(result.used)} of ${formatUsd(result.limit)} used today (UTC).`,
        `It resets at ${when}. Comment again after that, or ask the operator to raise the budget.`,
      ].join("\n\n");
    case "concurrent-tasks":
      return [
        `This installation already runs ${formatNumber(result.limit)} task${result.limit === 1 ? "" : "s"} at once, its limit.`,
        `A slot frees when one of them finishes; try again at about ${when}.`,
      ].join("\n\n");
  }
}
