import { describe, expect, it } from "@jest/globals";
import { computeCost, DEFAULT_PRICE_TABLE, selectPriceTable } from "../../../src/core/model/price-table.js";
import { addCostUsd, costOfResponse, formatCostUsd } from "../../../src/core/model/cost-usd.js";

const usage = { promptTokens: 2_000_000, completionTokens: 1_000_000, totalTokens: 3_000_000 };

describe("which prices a run uses", () => {
  it("bills OpenAI's list prices only on OpenAI's own endpoint", () => {
    for (const baseURL of [undefined, "https://api.openai.com/v1"]) {
      const cost = computeCost(selectPriceTable({}, baseURL), "gpt-4.1-mini", usage);
      expect(cost.isKnown).toBe(true);
      expect(cost.costUsd).toBeCloseTo(2 * 0.4 + 1.6, 10);
    }
    for (const baseURL of ["http://127.0.0.1:8081/v1", "https://openrouter.example/api/v1", "not a url"]) {
      expect(computeCost(selectPriceTable({}, baseURL), "gpt-4.1-mini", usage).isKnown).toBe(false);
    }
  });

  it("puts the operator's prices first, on any endpoint", () => {
    const operator = {
      "gpt-4.1-mini": { inputPerMillion: 1, outputPerMillion: 1 },
      local: { inputPerMillion: 0, outputPerMillion: 0 },
    };
    const openai = selectPriceTable(operator, undefined);
    expect(computeCost(openai, "gpt-4.1-mini", usage).costUsd).toBe(3);
    expect(openai["gpt-4o"]).toEqual(DEFAULT_PRICE_TABLE["gpt-4o"]);
    // A free local model the operator priced at 0 is known to cost nothing: $0 is then the truth.
    expect(computeCost(selectPriceTable(operator, "http://127.0.0.1:8081/v1"), "local", usage)).toEqual({
      costUsd: 0,
      isKnown: true,
    });
  });
});

describe("an unknown cost", () => {
  it("stays unknown when summed and reads as unknown", () => {
    const unknown = costOfResponse({ costUsd: 0, costKnown: false });
    expect(unknown).toBeNull();
    expect(addCostUsd(0.5, unknown)).toBeNull();
    expect(addCostUsd(unknown, 0.5)).toBeNull();
    expect(addCostUsd(0.5, costOfResponse({ costUsd: 0.25 }))).toBe(0.75);
    expect(formatCostUsd(unknown)).toBe("cost unknown");
    expect(formatCostUsd(0)).toBe("$0.0000");
  });
});
