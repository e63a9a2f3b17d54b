/**
 * How long an idle worker waits before its next claim: `pollMs` after the first empty claim,
 * doubling with each further one up to `maxPollMs`. Many idle worker processes polling a shared
 * queue at a short interval burn the CPU the busy ones need; a worker that has just seen work
 * (a claim, a wake) is likely to see more soon, so it starts again from `pollMs`.
 */
export interface PollBackoff {
  /** The wait after an empty claim; each call lengthens the next one. */
  next(): number;
  reset(): void;
}

export function createPollBackoff(pollMs: number, maxPollMs: number): PollBackoff {
  const ceiling = Math.max(pollMs, maxPollMs);
  let current = pollMs;
  return {
    next() {
      const wait = current;
      current = Math.min(ceiling, current * 2);
      return wait;
    },
    reset() {
      current = pollMs;
    },
  };
}
