import type { ModelResponse } from "./model-types.js";

/**
 * A cost in US dollars, or null when it is not known: the model has no price, or the server
 * reported no usage. Unknown is never shown or summed as zero.
 */
export type CostUsd = number | null;

/** The cost of one answer; a client that does not say otherwise priced it. */
export function costOfResponse(response: Pick<ModelResponse, "costUsd" | "costKnown">): CostUsd {
  return response.costKnown === false ? null : response.costUsd;
}

/** A total with one unknown part is unknown: a partial sum would read as the whole bill. */
export function addCostUsd(total: CostUsd, cost: CostUsd): CostUsd {
  return total === null || cost === null ? null : total + cost;
}

/** "$0.0123", or "cost unknown". */
export function formatCostUsd(cost: CostUsd, digits = 4): string {
  return cost === null ? "cost unknown" : `$${cost.toFixed(digits)}`;
}

/** Reads a cost back from JSON (trace attributes, metadata): a number, or null when absent. */
export function readCostUsd(value: unknown): CostUsd {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
