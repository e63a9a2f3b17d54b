import { describe, it, expect } from "@jest/globals";
import { createContextBudget, DEFAULT_CONTEXT_THRESHOLDS } from "../../../src/core/context/context-budget.js";
import { ContextError } from "../../../src/core/context/context-error.js";

describe("createContextBudget", () => {
  it("derives the thresholds from the input capacity (window minus reserved output)", () => {
    const budget = createContextBudget({ windowTokens: 10_000, reserveOutputTokens: 1_000 });
    expect(budget.thresholds).toEqual(DEFAULT_CONTEXT_THRESHOLDS);
    expect(budget.inputTokens).toBe(9_000);
    expect(budget.warnTokens).toBe(6_300);
    expect(budget.compactTokens).toBe(7_200);
    expect(budget.hardStopTokens).toBe(8_550);
  });

  it("reserves an eighth of a small window by default, at most 4,096 tokens", () => {
    expect(createContextBudget({ windowTokens: 16_384 }).reserveOutputTokens).toBe(2_048);
    expect(createContextBudget({ windowTokens: 200_000 }).reserveOutputTokens).toBe(4_096);
  });

  it("takes configured thresholds and refuses ones out of order, with a coded error", () => {
    const budget = createContextBudget({
      windowTokens: 4_000,
      reserveOutputTokens: 0,
      thresholds: { warn: 0.5, compact: 0.6 },
    });
    expect(budget.warnTokens).toBe(2_000);
    expect(budget.hardStopTokens).toBe(3_800);
    const bad = () => createContextBudget({ windowTokens: 4_000, thresholds: { warn: 0.9, compact: 0.8 } });
    expect(bad).toThrow(ContextError);
    expect(bad).toThrow(/warn <= compact/);
    let caught: unknown;
    try {
      createContextBudget({ windowTokens: 100 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ContextError);
    expect((caught as ContextError).code).toBe("CONTEXT_INVALID_OPTIONS");
    expect(() => createContextBudget({ windowTokens: 1_000, reserveOutputTokens: 600 })).toThrow(
      /reserveOutputTokens/,
    );
  });
});
