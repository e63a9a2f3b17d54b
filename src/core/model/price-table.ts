import type { TokenUsage } from "./model-types.js";

export interface ModelPrice {
  /** US dollars per million prompt tokens that were not served from the provider's cache. */
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** US dollars per million cached prompt tokens; the input price applies when absent. */
  readonly cachedInputPerMillion?: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Published list prices (USD per million tokens) of a few common models on OpenAI's own API.
 * Operators override or extend them through config; a model missing here has an unknown cost.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  "gpt-4o": { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 },
  "gpt-4.1": { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  "gpt-4.1-mini": { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6 },
  "o4-mini": { inputPerMillion: 1.1, cachedInputPerMillion: 0.275, outputPerMillion: 4.4 },
  "gpt-5": { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 },
  "gpt-5-mini": { inputPerMillion: 0.25, cachedInputPerMillion: 0.025, outputPerMillion: 2 },
};

/**
 * The prices a run uses: the operator's first, then OpenAI's list prices, and those only when the
 * endpoint is OpenAI's: a local or third-party server that serves a model under an OpenAI name
 * is not billed OpenAI's price.
 */
export function selectPriceTable(operatorPrices: PriceTable, baseURL: string | undefined): PriceTable {
  return isOpenAIEndpoint(baseURL) ? { ...DEFAULT_PRICE_TABLE, ...operatorPrices } : { ...operatorPrices };
}

function isOpenAIEndpoint(baseURL: string | undefined): boolean {
  if (baseURL === undefined || baseURL === "") return true;
  return URL.canParse(baseURL) && new URL(baseURL).hostname === "api.openai.com";
}

/** Dated snapshots ("gpt-4o-2024-08-06") are billed like their family name. */
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/;

export function findModelPrice(prices: PriceTable, model: string): ModelPrice | undefined {
  return prices[model] ?? prices[model.replace(SNAPSHOT_SUFFIX, "")];
}

export interface CostEstimate {
  readonly costUsd: number;
  /** False when the model has no price; costUsd is then 0 and must be shown as unknown. */
  readonly isKnown: boolean;
}

export function computeCost(prices: PriceTable, model: string, usage: TokenUsage): CostEstimate {
  const price = findModelPrice(prices, model);
  if (price === undefined) return { costUsd: 0, isKnown: false };
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const uncached = usage.promptTokens - cached;
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  const costUsd =
    (uncached * price.inputPerMillion +
      cached * cachedPrice +
      usage.completionTokens * price.outputPerMillion) /
    1_000_000;
  return { costUsd, isKnown: true };
}
