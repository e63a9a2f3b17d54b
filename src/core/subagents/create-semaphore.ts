/** At most `limit` holders at once; waiters are served first come, first served. */
export interface Semaphore {
  /** Resolves to a release function, or to null when `signal` fires first (the waiter leaves the queue). */
  acquire(signal?: AbortSignal): Promise<(() => void) | null>;
  readonly active: number;
  readonly waiting: number;
}

export function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`a semaphore needs a limit of at least 1, got ${limit}`);
  let active = 0;
  const queue: Array<() => void> = [];

  function releaser(): () => void {
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      const next = queue.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next();
      else active -= 1;
    };
  }

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal) {
      if (signal?.aborted) return Promise.resolve(null);
      if (active < limit) {
        active += 1;
        return Promise.resolve(releaser());
      }
      return new Promise((resolve) => {
        const grant = (): void => {
          signal?.removeEventListener("abort", leave);
          resolve(releaser());
        };
        const leave = (): void => {
          const index = queue.indexOf(grant);
          if (index !== -1) queue.splice(index, 1);
          resolve(null);
        };
        queue.push(grant);
        signal?.addEventListener("abort", leave, { once: true });
      });
    },
  };
}
