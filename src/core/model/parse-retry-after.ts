/**
 * Reads how long the server asked us to wait, in milliseconds, from `retry-after-ms` (OpenAI's
 * non-standard, more precise header) or `retry-after` (RFC 9110: delay-seconds or an HTTP date).
 * Returns undefined when there is no usable value, so the caller falls back to its own backoff.
 */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null) {
    const value = Number(milliseconds.trim());
    if (milliseconds.trim() !== "" && Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter === undefined || retryAfter === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number(retryAfter) * 1000;
  // An HTTP date always names its day and month; this keeps "-3" from parsing as a year.
  if (!/[a-z]/i.test(retryAfter)) return undefined;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

export interface BackoffOptions {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
}

/**
 * Delay before retry number `retry` (1 for the first retry). A server's Retry-After wins but is
 * capped at maxDelayMs so a hostile or confused server cannot park a run for hours; otherwise
 * exponential backoff with full jitter (uniform in [0, base * 2^(retry-1)]), which spreads
 * clients that failed together instead of having them retry in lockstep.
 */
export function computeRetryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(options.random() * ceiling);
}
