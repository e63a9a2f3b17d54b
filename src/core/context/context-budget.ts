import { ContextError } from "./context-error.js";

/** Fractions of the input capacity (window minus reserved output) at which the manager acts. */
export interface ContextThresholds {
  readonly warn: number;
  readonly compact: number;
  readonly hardStop: number;
}

export const DEFAULT_CONTEXT_THRESHOLDS: ContextThresholds = { warn: 0.7, compact: 0.8, hardStop: 0.95 };

export interface ContextBudget {
  readonly windowTokens: number;
  readonly reserveOutputTokens: number;
  /** What a request may use: the window minus the tokens kept free for the answer. */
  readonly inputTokens: number;
  readonly thresholds: ContextThresholds;
  readonly warnTokens: number;
  readonly compactTokens: number;
  readonly hardStopTokens: number;
}

export interface ContextBudgetOptions {
  readonly windowTokens: number;
  readonly reserveOutputTokens?: number;
  readonly thresholds?: Partial<ContextThresholds>;
}

/** Without a configured reserve, keep an eighth of the window for the answer, at most 4,096 tokens. */
export function defaultReserveOutputTokens(windowTokens: number): number {
  return Math.min(4096, Math.floor(windowTokens / 8));
}

export function createContextBudget(options: ContextBudgetOptions): ContextBudget {
  const { windowTokens } = options;
  if (!Number.isInteger(windowTokens) || windowTokens < 256) {
    throw new ContextError(
      "CONTEXT_INVALID_OPTIONS",
      `windowTokens must be an integer of at least 256, got ${String(windowTokens)}`,
    );
  }
  const reserveOutputTokens = options.reserveOutputTokens ?? defaultReserveOutputTokens(windowTokens);
  if (
    !Number.isInteger(reserveOutputTokens) ||
    reserveOutputTokens < 0 ||
    reserveOutputTokens >= windowTokens / 2
  ) {
    throw new ContextError(
      "CONTEXT_INVALID_OPTIONS",
      `reserveOutputTokens must be an integer from 0 to less than half the window (${windowTokens}), got ${String(reserveOutputTokens)}`,
    );
  }
  const thresholds: ContextThresholds = { ...DEFAULT_CONTEXT_THRESHOLDS, ...options.thresholds };
  const { warn, compact, hardStop } = thresholds;
  const ordered = 0 < warn && warn <= compact && compact < hardStop && hardStop <= 1;
  if (!ordered || [warn, compact, hardStop].some((value) => !Number.isFinite(value))) {
    throw new ContextError(
      "CONTEXT_INVALID_OPTIONS",
      `thresholds must satisfy 0 < warn <= compact < hardStop <= 1, got warn=${warn} compact=${compact} hardStop=${hardStop}`,
    );
  }
  const inputTokens = windowTokens - reserveOutputTokens;
  return {
    windowTokens,
    reserveOutputTokens,
    inputTokens,
    thresholds,
    warnTokens: Math.floor(inputTokens * warn),
    compactTokens: Math.floor(inputTokens * compact),
    hardStopTokens: Math.floor(inputTokens * hardStop),
  };
}
