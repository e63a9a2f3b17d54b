/**
 * Like `AbortSignal.any`, but the listener on the long-lived parent (the run's signal) is removed
 * when the short-lived call ends. `AbortSignal.any` keeps it until garbage collection, so a run of
 * many turns piles listeners on its signal and Node warns about a leak.
 */
export function linkAbortSignals(
  parent: AbortSignal | undefined,
  child: AbortController,
): { readonly signal: AbortSignal; unlink(): void } {
  if (parent === undefined) return { signal: child.signal, unlink: () => undefined };
  if (parent.aborted) {
    child.abort(parent.reason);
    return { signal: child.signal, unlink: () => undefined };
  }
  const forward = (): void => child.abort(parent.reason);
  parent.addEventListener("abort", forward, { once: true });
  return { signal: child.signal, unlink: () => parent.removeEventListener("abort", forward) };
}
