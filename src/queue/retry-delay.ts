export interface RetryBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { baseMs: 5_000, maxMs: 300_000 };

/** Exponential backoff after the given (1-based) failed attempt, capped. */
export function computeRetryDelayMs(attempt: number, backoff: RetryBackoff = DEFAULT_RETRY_BACKOFF): number {
  const exponent = Math.max(0, attempt - 1);
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(exponent, 30));
}
