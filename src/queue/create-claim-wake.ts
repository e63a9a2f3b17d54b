/**
 * What the worker loop waits on between claims that found nothing: its poll interval, cut short
 * by a wake (a task enqueued in this process, a task of its own ending) or by the stop signal.
 * A wake that comes while the loop is claiming is kept, so the next wait returns at once: a task
 * enqueued between a claim's read and the wait is never left for the poll.
 */
export interface ClaimWake {
  wake(): void;
  /** Called before each claim: wakes from before it are covered by that claim. */
  clear(): void;
  wait(ms: number, signal: AbortSignal): Promise<void>;
}

export function createClaimWake(): ClaimWake {
  let isPending = false;
  let release: (() => void) | null = null;
  return {
    wake() {
      isPending = true;
      release?.();
    },
    clear() {
      isPending = false;
    },
    wait(ms, signal) {
      if (isPending || signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          release = null;
          resolve();
        }
        release = done;
        signal.addEventListener("abort", done, { once: true });
      });
    },
  };
}
