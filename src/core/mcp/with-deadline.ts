/** Why a deadline fired, kept apart from the caller's own cancellation. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
  readonly code = "DEADLINE_EXCEEDED";
  constructor(readonly timeoutMs: number) {
    super(`did not finish within ${timeoutMs} ms`);
  }
}

/**
 * Runs `work` with a signal that fires after `timeoutMs` or when `signal` fires, and rejects at
 * that moment even if `work` ignores its signal: a hung server must never hang the caller.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DeadlineExceededError(timeoutMs)), timeoutMs);
  try {
    return await Promise.race([work(controller.signal), rejectOnAbort<T>(controller.signal)]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function rejectOnAbort<T>(signal: AbortSignal): Promise<T> {
  return new Promise<T>((_, reject) => {
    const fail = (): void =>
      reject(signal.reason instanceof Error ? signal.reason : new Error("aborted", { cause: signal.reason }));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/** Waits `ms`, or less when `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
