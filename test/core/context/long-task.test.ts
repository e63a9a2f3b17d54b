import { describe, it, expect } from "@jest/globals";
import { LONG_TASK_GOAL, simulateLongTask, findMissingFacts } from "../../../bench/context-tokens.bench.js";

describe("a long scripted task in a small window", () => {
  it("runs 64 turns with large outputs inside a 16k window, valid throughout, goal and facts pinned", async () => {
    const stats = await simulateLongTask({ turns: 64, windowTokens: 16_384 });
    expect(stats.allTranscriptsValid).toBe(true);
    expect(stats.overflowed).toBe(false);
    expect(stats.maxRequestTokens).toBeLessThanOrEqual(stats.hardStopTokens);
    // The whole history, sent every turn, would have needed far more than the window.
    expect(stats.baselineTokens / (stats.turns + 1)).toBeGreaterThan(stats.windowTokens * 2);
    expect(stats.promptTokens / stats.baselineTokens).toBeLessThanOrEqual(0.35);
    expect(stats.missingFacts).toEqual([]);
    const finalText = stats.finalRequest.map((message) => message.content ?? "").join("\n");
    expect(finalText).toContain(LONG_TASK_GOAL);
    expect(stats.facts.snapshot().filesChanged.length).toBeGreaterThan(5);
  });

  it("notices a fact that is missing from a request", async () => {
    const stats = await simulateLongTask({ turns: 12, windowTokens: 16_384 });
    const withoutLedger = stats.finalRequest.filter((_, index) => index !== 1);
    // The goal is still in the uncompacted history; the plan lives only in the ledger.
    expect(findMissingFacts(stats.facts, stats.finalRequest)).toEqual([]);
    expect(findMissingFacts(stats.facts, withoutLedger)).toContain("Reproduce the failing anchor test");
  });
});
