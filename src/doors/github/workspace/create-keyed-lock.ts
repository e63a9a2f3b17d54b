/**
 * Runs work for one key at a time, in arrival order, inside this process. Two App processes
 * sharing one cache directory are not serialised by it; git's own lock files then make the
 * second fetch fail with "cannot lock ref" rather than corrupt the mirror, and the task retries.
 */
export interface KeyedLock {
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      // The next holder waits for this one to settle, whether it succeeded or failed.
      const result = previous.then(work, work);
      const tail = result.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
