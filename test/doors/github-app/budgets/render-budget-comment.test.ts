import { describe, expect, it } from "@jest/globals";
import {
  formatTimeUntil,
  renderBudgetComment,
} from "../../../../src/doors/github-app/budgets/render-budget-comment.js";

describe("renderBudgetComment", () => {
  const now = new Date("2026-03-14T19:00:00.000Z");
  const resetsAt = new Date("2026-03-15T00:00:00.000Z");

  it("says the token budget is spent and when it resets, as ISO time and relative time", () => {
    const text = renderBudgetComment(
      { allowed: false, reason: "tokens-per-day", resetsAt, used: 1_250_000, limit: 1_000_000 },
      now,
    );
    expect(text).toContain("daily token budget");
    expect(text).toContain("1,250,000 of 1,000,000 tokens");
    expect(text).toContain("2026-03-15T00:00:00.000Z (in 5 h)");
  });

  it("formats the cost budget in dollars", () => {
    const text = renderBudgetComment(
      { allowed: false, reason: "cost-per-day", resetsAt, used: 20.5, limit: 20 },
      now,
    );
    expect(text).toContain("$20.50 of $20.00");
    expect(text).toContain("(in 5 h)");
  });

  it("explains the concurrent-task limit", () => {
    const text = renderBudgetComment(
      {
        allowed: false,
        reason: "concurrent-tasks",
        resetsAt: new Date(now.getTime() + 60_000),
        used: 3,
        limit: 3,
      },
      now,
    );
    expect(text).toContain("runs 3 tasks at once");
    expect(text).toContain("in less than a minute");
  });

  it("formats relative times", () => {
    expect(formatTimeUntil(now, new Date(now.getTime() + 4 * 3_600_000 + 20 * 60_000))).toBe("in 4 h 20 min");
    expect(formatTimeUntil(now, new Date(now.getTime() + 12 * 60_000))).toBe("in 12 min");
    expect(formatTimeUntil(now, new Date(now.getTime() + 59 * 60_000 + 1))).toBe("in 1 h");
  });
});
