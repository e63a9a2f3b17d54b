/** Marks an HTTP attempt that got no response headers in time. */
export class HttpTimeoutError extends Error {
  override readonly name = "HttpTimeoutError";
}

/**
 * Wraps fetch with a deadline on the response headers (the body is the inference deadline's
 * business). The SDK has its own timer, but what it throws on expiry depends on the fetch
 * implementation and on which realm created the abort error; aborting with our own error class
 * lets the adapter recognise a timeout by type, as the SDK keeps it as the `cause`.
 */
export function fetchWithHttpTimeout(baseFetch: typeof fetch, timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const timer = setTimeout(() => {
      controller.abort(new HttpTimeoutError(`no response headers within ${timeoutMs} ms`));
    }, timeoutMs);
    const signal =
      init?.signal === undefined || init.signal === null
        ? controller.signal
        : AbortSignal.any([init.signal, controller.signal]);
    try {
      return await baseFetch(input, { ...init, signal });
    } finally {
      clearTimeout(timer);
    }
  };
}
