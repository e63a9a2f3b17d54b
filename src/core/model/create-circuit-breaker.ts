export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitBreakerOptions {
  /** Consecutive failed attempts that open the circuit. */
  readonly failureThreshold?: number;
  /** How long an open circuit refuses requests before it lets one trial through. */
  readonly coolDownMs?: number;
  readonly now?: () => number;
}

/**
 * Guards one model. The unit is an attempt, not a whole call: three failed HTTP attempts in a
 * row say more about a model's health than three calls that each retried several times, and it
 * lets the retry loop stop hammering a model as soon as its circuit opens.
 *
 * closed --(failureThreshold consecutive failures)--> open --(coolDownMs)--> half-open
 * half-open lets exactly one trial through: success closes, failure re-opens for coolDownMs.
 */
export interface CircuitBreaker {
  state(): CircuitState;
  /** Asks to send one attempt; in half-open this takes the single trial slot. */
  tryAcquire(): boolean;
  recordSuccess(): void;
  recordFailure(): void;
  /** The attempt ended with no verdict on the model's health (cancelled, our own bad request). */
  recordNeutral(): void;
  /** Milliseconds until an open circuit allows a trial; 0 when it allows requests now. */
  remainingCoolDownMs(): number;
}

export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const failureThreshold = options.failureThreshold ?? 3;
  const coolDownMs = options.coolDownMs ?? 30_000;
  const now = options.now ?? Date.now;
  let consecutiveFailures = 0;
  let openedAt: number | undefined;
  let isTrialInFlight = false;

  function state(): CircuitState {
    if (openedAt === undefined) return "closed";
    return now() - openedAt >= coolDownMs ? "half-open" : "open";
  }

  function open(): void {
    openedAt = now();
    isTrialInFlight = false;
  }

  return {
    state,
    tryAcquire() {
      const current = state();
      if (current === "closed") return true;
      if (current === "open" || isTrialInFlight) return false;
      isTrialInFlight = true;
      return true;
    },
    recordSuccess() {
      consecutiveFailures = 0;
      openedAt = undefined;
      isTrialInFlight = false;
    },
    recordFailure() {
      consecutiveFailures += 1;
      if (openedAt !== undefined || consecutiveFailures >= failureThreshold) open();
    },
    recordNeutral() {
      isTrialInFlight = false;
    },
    remainingCoolDownMs() {
      if (openedAt === undefined) return 0;
      return Math.max(0, coolDownMs - (now() - openedAt));
    },
  };
}
