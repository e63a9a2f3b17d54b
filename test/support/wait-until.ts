/** A condition that did not hold in time; the message names what was awaited. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
  readonly code = "WAIT_TIMEOUT";
  constructor(description: string, timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms waiting for ${description}`);
  }
}

export interface WaitUntilOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * The one polling helper, for state with no event to await: another process's files, output or
 * pids, a queue's stored state. Where a component can say when it is done (a promise, a callback,
 * a stream event), await that instead.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  description: string,
  options: WaitUntilOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new WaitTimeoutError(description, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
